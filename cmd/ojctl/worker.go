package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"oj/core/api/client"
	"oj/core/wire"
)

func newWorkerCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "List workers; drain, disable or enable one",
		Long: `Workers announce themselves in PostgreSQL: the lanes they read, the languages
their self-check passed (they claim only those), and they obey the state kept
in their row:

  active       claims and judges
  draining     finishes what it holds and claims nothing new; once IN FLIGHT
               is 0 the host can be stopped with nothing to give back
  disabled     claims nothing, and gives back what it was judging (judged
               again elsewhere; the attempt does not count as a failure)
  quarantined  set itself apart after worker.quarantine_after attempts in a
               row ended in system errors; claims nothing until enabled
               (see runbooks/worker-quarantined.md)

A worker obeys a change within worker.state_poll (2 s by default), and its
claims are refused from the moment the change commits. The state outlives the
process: a disabled worker that restarts under the same worker.name stays
disabled. Each change is audited and can be tried with --dry-run.`,
		Example: `  ojctl worker ls
  ojctl worker drain judge-3 --reason "kernel update"
  ojctl worker enable judge-3 --yes`,
	}
	cmd.AddCommand(newWorkerLsCmd(a),
		newWorkerStateCmd(a, "drain", "Drain a worker: it finishes what it holds and claims nothing new",
			"Drain NAME: it finishes the submissions it holds and claims nothing new. `ojctl worker ls`\nshows IN FLIGHT going to 0; then the host can be stopped or worked on."),
		newWorkerStateCmd(a, "disable", "Disable a worker: it claims nothing and gives back what it holds",
			"Disable NAME: it stops judging at once; what it was judging goes back to the queue\n(judged again by another worker, the attempt not counted as a failure)."),
		newWorkerStateCmd(a, "enable", "Enable a worker: it claims again (ends a drain, a disable or a quarantine)",
			"Enable NAME: it claims and judges again. This is how a quarantine ends: fix what its\nrecent errors point at first (ojctl worker ls -o json shows them)."))
	return cmd
}

func newWorkerLsCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "ls",
		Short: "List the workers: state, lanes, languages, last seen, in-flight work",
		Long: `List the workers PostgreSQL knows: the live ones, and the stopped ones an operator
or a quarantine set apart. LIVE is "no" for a worker not seen for 35 s (killed,
or cut off from PostgreSQL). LANGUAGES are those whose self-check passed: a
submission in another language is never claimed by it. IN FLIGHT counts the
submissions it holds a lease on. With -o json each worker also carries its
recent system errors.`,
		Example: `  ojctl worker ls
  ojctl worker ls -o json | jq '.[] | select(.state == "quarantined") | {name, reason, recent_errors}'`,
		Args: cobra.NoArgs,
		RunE: fetched(a, func(cmd *cobra.Command, c *client.Client, _ []string) ([]wire.WorkerInfo, error) {
			w, err := c.Workers(cmd.Context())
			if err != nil {
				return nil, err
			}
			if w.Workers == nil {
				return []wire.WorkerInfo{}, nil
			}
			return w.Workers, nil
		}, func(p *printer, list []wire.WorkerInfo) { printWorkers(p, list, time.Now()) }),
	}
}

// printWorkers is the table of ojctl worker ls and of ojctl workers.
func printWorkers(p *printer, list []wire.WorkerInfo, now time.Time) {
	rows := make([][]string, 0, len(list))
	for _, w := range list {
		rows = append(rows, []string{w.Name, workerState(w), yesNo(w.Live), lanesCell(w.Lanes), languagesCell(w.Languages),
			ago(now, w.LastSeen), itoa(w.InFlight), itoa(len(w.RecentErrors)), oneLine(w.Reason)})
	}
	p.table([]string{"NAME", "STATE", "LIVE", "LANES", "LANGUAGES", "LAST SEEN", "IN FLIGHT", "ERRORS", "REASON"}, rows)
}

// workerState is the state, with "(drained)" once a draining worker holds nothing.
func workerState(w wire.WorkerInfo) string {
	if w.State == "draining" && w.InFlight == 0 {
		return "draining (drained)"
	}
	return w.State
}

func lanesCell(lanes map[string]int) string {
	names := make([]string, 0, len(lanes))
	for l := range lanes {
		names = append(names, l)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, l := range names {
		parts[i] = fmt.Sprintf("%s:%d", l, lanes[l])
	}
	return strings.Join(parts, " ")
}

func languagesCell(langs []string) string {
	if langs == nil {
		return "any"
	}
	return strings.Join(langs, ",")
}

func ago(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return ms(max(now.Sub(t).Milliseconds(), 0)) + " ago"
}

func newWorkerStateCmd(a *app, action, short, long string) *cobra.Command {
	var s safety
	var reason string
	cmd := &cobra.Command{
		Use:   action + " NAME [--reason TEXT] [--dry-run] [--yes]",
		Short: short,
		Long: long + `

The state is kept in PostgreSQL and audited; the worker obeys within
worker.state_poll. A worker already in that state is refused (HTTP 409, exit 1);
an unknown name is HTTP 404 (exit 1): ojctl worker ls lists the names.`,
		Example: fmt.Sprintf("  ojctl worker %s judge-3 --dry-run\n  ojctl worker %s judge-3 --reason \"maintenance\" --yes", action, action),
		Args:    cobra.ExactArgs(1),
		RunE: a.act(&s, func(_ *cobra.Command, c *client.Client, args []string) (mutation, error) {
			name := args[0]
			return mutation{verb: action + " worker " + name, noun: "workers",
				call: answered(func(ctx context.Context, dry bool) (*wire.WorkerActionResult, error) {
					return c.SetWorkerState(ctx, name, action, reason, dry)
				}, func(r *wire.WorkerActionResult, _ bool) effect {
					n, row := doneOrWould(r.DryRun, "Changed", "Would change", r.Changed, r.WouldChange)
					return effect{changes: n, requested: 1, fields: [][2]string{row, {"Worker", r.Name}, {"From", r.From}, {"To", r.To}}}
				})}, nil
		}),
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why, kept with the worker's state and in the audit log")
	s.register(cmd)
	return cmd
}
