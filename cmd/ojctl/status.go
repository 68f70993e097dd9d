package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"oj/core/api/client"
	"oj/core/wire"
	"oj/tui/shared"
)

func newStatusCmd(a *app) *cobra.Command {
	var watch, cases bool
	cmd := &cobra.Command{
		Use:   "status ID [--watch] [--cases]",
		Short: "Show a submission with its per-case results",
		Long: `Show a submission as the API returns it: state, verdict, score, time, memory,
attempt, the error of a dead or SE submission, compile output and the result of
every case. A user token sees its own submissions; an admin token sees all.

--cases adds, for each case that is not AC, what the solution wrote on stdout and
stderr (the excerpts the worker kept, GET /api/v1/submissions/{id}/cases/{n}) and,
for an admin token, the checker's whole message. With -o json, --cases prints the
detail of every case instead of the submission.

--watch follows the submission's Server-Sent Events, printing one line per state
change, until it is finished, dead or canceled, then prints it. With -o json the
progress lines go to stderr and stdout holds only the final submission.`,
		Example: `  ojctl status 0190a3c4-...
  ojctl status 0190a3c4-... --watch
  ojctl status 0190a3c4-... --cases
  ojctl status 0190a3c4-... -o json | jq -r .verdict
  ojctl status 0190a3c4-... --cases -o json | jq -r '.[] | select(.verdict != "AC") | .stderr'`,
		Args: cobra.ExactArgs(1),
		RunE: a.run(func(cmd *cobra.Command, args []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			var s *wire.Submission
			if watch {
				s, err = a.follow(cmd.Context(), c, args[0])
			} else {
				s, err = c.Submission(cmd.Context(), args[0])
			}
			if err != nil {
				return err
			}
			if cases {
				return a.printWithCases(cmd.Context(), c, s)
			}
			return a.print(s, func(p *printer) { printSubmission(p, s) })
		}),
	}
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "follow state changes until the submission is terminal")
	cmd.Flags().BoolVar(&cases, "cases", false, "also show what the solution wrote in each failed case (with -o json: every case's detail)")
	return cmd
}

// progress is where progress lines go: stdout for tables, stderr when stdout is JSON.
func (a *app) progress() io.Writer {
	if a.output == "json" {
		return a.stderr
	}
	return a.stdout
}

// follow prints a line per state event, and one per case as the running attempt judges
// it, of submission id until a terminal state, then
// returns the submission as GET /api/v1/submissions/{id} answers. The server's first
// event is always the current state, so reconnecting after a dropped stream loses nothing.
func (a *app) follow(ctx context.Context, c *client.Client, id string) (*wire.Submission, error) {
	w := a.progress()
	var last wire.StateEvent
	done, failures := false, 0
	for !done {
		err := c.Events(ctx, id, func(ev wire.StateEvent) error {
			failures = 0
			if ev.Case != nil {
				fmt.Fprintln(w, caseLine(ev))
				return nil
			}
			if ev.State == last.State && ev.Attempt == last.Attempt {
				return nil // the current state again, after a reconnect
			}
			last = ev
			fmt.Fprintln(w, progressLine(ev))
			done = terminalState(ev.State)
			return nil
		})
		switch {
		case done:
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil && client.StatusOf(err) != 0:
			return nil, err // the server said no (404, 401, …): retrying will not help
		case err != nil:
			if failures++; failures > 5 {
				return nil, err
			}
			fallthrough
		default:
			// The stream ended before a terminal state (server restart, proxy timeout).
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Second):
			}
		}
	}
	return c.Submission(ctx, id)
}

// caseLine is the progress line of one judged case.
func caseLine(ev wire.StateEvent) string {
	c := ev.Case
	line := fmt.Sprintf("%s  case %-3d  %-4s %6d ms %8d KiB", time.Now().Format("15:04:05"), c.Index, c.Verdict, c.TimeMS, c.MemoryKB)
	if c.Message != "" {
		line += "  " + strings.SplitN(c.Message, "\n", 2)[0]
	}
	return line
}

func terminalState(s string) bool { return s == "finished" || s == "dead" || s == "canceled" }

func progressLine(ev wire.StateEvent) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %-8s  attempt %d", time.Now().Format("15:04:05"), ev.State, ev.Attempt)
	if s := ev.Submission; s != nil {
		fmt.Fprintf(&b, "  verdict %s  score %s  %d cases", ptrOr(s.Verdict, "-"), ptrOr(s.Score, "-"), len(s.Cases))
	}
	return b.String()
}

// printWithCases prints the submission with the output of its failed cases, or with -o
// json the detail of every case.
func (a *app) printWithCases(ctx context.Context, c *client.Client, s *wire.Submission) error {
	if a.output == "json" {
		details, err := caseDetails(ctx, c, s.ID, s.Cases)
		if err != nil {
			return err
		}
		return writeJSON(a.stdout, details)
	}
	failed := failedCases(s)
	shown := failed[:min(len(failed), maxCaseOutputs)]
	details, err := caseDetails(ctx, c, s.ID, shown)
	if err != nil {
		return err
	}
	return a.print(s, func(p *printer) {
		printSubmission(p, s)
		printCaseOutputs(p, details, len(failed)-len(shown))
	})
}

// printSubmission draws a submission: its fields (the error of a dead or SE submission
// whole, wrapped), compile output, then its cases.
func printSubmission(p *printer, s *wire.Submission) {
	fields := [][2]string{
		{"ID", s.ID},
		{"Problem", fmt.Sprintf("%s (version %d)", s.ProblemID, s.ProblemVersion)},
		{"Language", s.Language},
		{"State", s.State},
		{"Verdict", ptrOr(s.Verdict, "-")},
	}
	if s.Error != "" {
		fields = append(fields, [2]string{"Error", s.Error})
	}
	if s.Waiting != "" {
		fields = append(fields, [2]string{"Waiting", s.Waiting})
	}
	fields = append(fields, [][2]string{
		{"Score", ptrOr(s.Score, "-")},
		{"Time", msPtr(s.TimeMS)},
		{"Memory", kbPtr(s.MemoryKB)},
		{"Attempt", itoa(s.Attempt)},
		{"Created", stamp(s.CreatedAt)},
		{"Finished", stampPtr(s.FinishedAt)},
	}...)
	printFieldsWrapped(p, fields)
	if s.CompileOutput != "" {
		p.heading("Compile output")
		p.printf("%s\n", strings.TrimRight(shared.Safe(s.CompileOutput), "\n"))
	}
	if len(s.Cases) > 0 {
		p.heading("Cases")
		rows := make([][]string, 0, len(s.Cases))
		for _, c := range s.Cases {
			rows = append(rows, []string{itoa(c.Index), itoa(c.Subtask), c.Verdict, ms(int64(c.TimeMS)),
				kb(c.MemoryKB), fmt.Sprint(c.Score), oneLine(c.Message)})
		}
		p.table([]string{"#", "SUBTASK", "VERDICT", "TIME", "MEMORY", "SCORE", "MESSAGE"}, rows)
	}
	printGroups(p, s.Groups)
}

func msPtr(v *int) string {
	if v == nil {
		return "-"
	}
	return ms(int64(*v))
}

func kb(v int) string {
	if v >= 10*1024 {
		return fmt.Sprintf("%.1f MiB", float64(v)/1024)
	}
	return fmt.Sprintf("%d KiB", v)
}

func kbPtr(v *int) string {
	if v == nil {
		return "-"
	}
	return kb(*v)
}
