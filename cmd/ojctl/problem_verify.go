package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"oj/core/api/client"
	"oj/core/wire"
)

func newProblemVerifyCmd(a *app) *cobra.Command {
	var s safety
	var wait, show bool
	var timeout time.Duration
	var id, format string
	cmd := &cobra.Command{
		Use:   "verify P|DIR|ZIP [--wait] [--show] [--dry-run] [--yes]",
		Short: "Judge a problem's labeled submissions and say which got what their label expects",
		Long: `Verify the latest version of problem P (admin token; audited): the package's own
labeled submissions (Kattis submission folders and @EXPECTED_RESULTS@ lines, Polygon
solution tags) are judged on the low-priority rejudge lane, as verification
submissions that count for no one. Given a directory or a zip instead of an id, it
is pushed first (as "problem push" does; --id and --format as there).

Once every submission ended, each verdict is held to the time limit (derived from
the accepted submissions when the package gives none, and then kept as the
version's limit) and compared with its label: as labeled, not as labeled,
ambiguous (a TLE label within the limit on this machine, or past the limit but
within the safety margin: the times say how close) or not run (no language). The
table shows each one's verdict and slowest time against the limit, the slowest
accepted time and its margin, and "N as labeled, M not".

--wait follows the verification and prints the table (exit 1 when it failed);
without it the command prints what was queued. --show prints the latest
verification without starting one. On a terminal it shows how many submissions
would be judged and asks y/N; without a terminal pass --yes.`,
		Example: `  ojctl problem verify different --wait
  ojctl problem verify ./kattis/guess --id guess --wait --yes
  ojctl problem verify different --show -o json | jq .summary`,
		Args: cobra.ExactArgs(1),
		RunE: a.run(func(cmd *cobra.Command, args []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			ctx, target := cmd.Context(), args[0]
			if info, err := os.Stat(target); err == nil && !problemIDLike(target) {
				if show {
					return usagef("--show takes a problem id, not a package")
				}
				pkg, err := readPackage(filepath.Clean(target), info, &id)
				if err != nil {
					return err
				}
				if !s.dryRun {
					prob, err := c.PutProblemAs(ctx, id, format, strings.NewReader(string(pkg)))
					if err != nil {
						return err
					}
					fmt.Fprintf(a.stderr, "pushed %s as version %d (%s, %d cases)\n", prob.ID, prob.Version, prob.Format, prob.CaseCount)
				}
				target = id
			}
			if show {
				v, err := c.Verification(ctx, target)
				if err != nil {
					return err
				}
				return a.print(v, func(p *printer) { printVerification(p, v) })
			}
			if !s.dryRun && !s.yes && !a.stdinTTY {
				return usagef("refusing to verify %s without confirmation: stdin is not a terminal; pass --yes to proceed (or --dry-run to see what would be judged)", target)
			}
			if s.dryRun || !s.yes {
				r, err := c.VerifyProblem(ctx, target, true)
				if err != nil {
					return err
				}
				what := fmt.Sprintf("verify %s v%d: judge %s on the rejudge lane (%d not runnable) with a %s limit",
					target, r.Version, plural(r.Submissions, "labeled submission"), r.NotRun, ms(int64(r.RunLimitMS)))
				if s.dryRun {
					return a.print(r, func(p *printer) { p.printf("dry run: would %s; nothing changed\n", what) })
				}
				ok, err := a.confirm(ctx, what+"? [y/N] ")
				if err != nil {
					return err
				}
				if !ok {
					return usagef("not confirmed: nothing changed")
				}
			}
			r, err := c.VerifyProblem(ctx, target, false)
			if err != nil {
				return err
			}
			if !wait {
				return a.print(r, func(p *printer) {
					p.printf("verification %d of %s v%d: %s queued, %d not runnable; follow it with ojctl problem verify %s --show\n",
						r.VerificationID, target, r.Version, plural(r.Submissions, "submission"), r.NotRun, target)
				})
			}
			v, err := waitVerification(ctx, c, target, r.VerificationID, timeout, a)
			if err != nil {
				return err
			}
			if err := a.print(v, func(p *printer) { printVerification(p, v) }); err != nil {
				return err
			}
			if v.State != "passed" {
				return &exitError{code: exitFailure, kind: codeFailed, msg: fmt.Sprintf("verification %d failed: %s", v.ID, v.Summary)}
			}
			return nil
		}),
	}
	s.register(cmd)
	cmd.Flags().BoolVar(&wait, "wait", false, "follow the verification until every submission ended and print its table")
	cmd.Flags().BoolVar(&show, "show", false, "print the latest verification; start none")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Minute, "with --wait, give up after this long")
	cmd.Flags().StringVar(&id, "id", "", "with a package: the problem id (default: its name)")
	cmd.Flags().StringVar(&format, "format", "", "with a package: its format, oj, kattis or polygon (default: detected)")
	return cmd
}

// problemIDLike reports whether s reads as a problem id rather than a path (a local
// file of the same name as a problem is taken as the problem unless it has a slash or
// an extension).
func problemIDLike(s string) bool {
	return !strings.ContainsAny(s, "/.")
}

// waitVerification polls the verification until it ended.
func waitVerification(ctx context.Context, c *client.Client, id string, vid int64, timeout time.Duration, a *app) (*wire.Verification, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	last := ""
	for {
		v, err := c.Verification(ctx, id)
		if err != nil {
			return nil, err
		}
		if v.ID == vid && v.State != "running" {
			return v, nil
		}
		if a.stderrTTY && v.Summary != last {
			fmt.Fprintf(a.stderr, "verification %d: %s\n", v.ID, v.Summary)
			last = v.Summary
		}
		select {
		case <-ctx.Done():
			return nil, failf("verification %d of %s still running after %s: see ojctl problem verify %s --show", vid, id, timeout, id)
		case <-time.After(2 * time.Second):
		}
	}
}

// printVerification prints a verification's table.
func printVerification(p *printer, v *wire.Verification) {
	limit := ms(int64(v.LimitMS))
	if v.Derived {
		limit += " (derived from the accepted submissions)"
	}
	p.fields([][2]string{
		{"Problem", fmt.Sprintf("%s v%d", v.ProblemID, v.Version)},
		{"Verification", fmt.Sprintf("%d, %s", v.ID, v.State)},
		{"Time limit", limit},
		{"Ran with", ms(int64(v.RunLimitMS))},
		{"Slowest accepted", slowestText(v)},
		{"Summary", v.Summary},
	})
	rows := make([][]string, 0, len(v.Rows))
	for _, r := range v.Rows {
		t := ""
		if r.LimitMS > 0 && r.Status != "not_run" {
			t = fmt.Sprintf("%s / %s", ms(int64(r.TimeMS)), ms(int64(r.LimitMS)))
			if r.TimeFactor != 0 && r.TimeFactor != 1 {
				// The row's limit is the problem's times its language's factor.
				t += fmt.Sprintf(" (%s × %s)", ms(int64(v.LimitMS)), strconv.FormatFloat(r.TimeFactor, 'g', -1, 64))
			}
		}
		rows = append(rows, []string{r.Source, r.Language, strings.Join(r.Expect, "|"), r.Got, t, strings.ReplaceAll(r.Status, "_", " "), r.Note})
	}
	p.table([]string{"SUBMISSION", "LANG", "EXPECTED", "GOT", "TIME / LIMIT", "STATUS", "NOTE"}, rows)
	for _, pr := range v.Problems {
		p.printf("problem: %s\n", pr)
	}
}

func slowestText(v *wire.Verification) string {
	if v.SlowestACSource == "" {
		return "none"
	}
	return fmt.Sprintf("%s, margin %.2f× to the limit", v.SlowestACText(), v.Margin)
}
