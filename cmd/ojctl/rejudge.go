package main

import (
	"context"

	"github.com/spf13/cobra"

	"oj/core/wire"
)

func newRejudgeCmd(a *app) *cobra.Command {
	var (
		submission, problem string
		s                   safety
	)
	cmd := &cobra.Command{
		Use:   "rejudge (--submission ID | --problem P) [--dry-run] [--yes]",
		Short: "Judge finished submissions again on the low-priority lane",
		Long: `Send a judged (finished, dead or canceled) submission, or every judged submission
of a problem, back to the queue on the rejudge lane, which workers serve after the
live lanes. Use it after fixing a problem's tests or checker. Each rejudge is a new
attempt, recorded in the submission's trace and in the audit log.

Exit code 3 when fewer were rejudged than asked for.`,
		Example: `  ojctl rejudge --submission 0190a3c4-...
  ojctl rejudge --problem aplusb --dry-run
  ojctl rejudge --problem aplusb --yes -o json`,
		Args: cobra.NoArgs,
		RunE: a.run(func(cmd *cobra.Command, _ []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			verb := "rejudge submission " + submission
			if problem != "" {
				verb = "rejudge the submissions of problem " + problem
			}
			return a.mutate(cmd, s, mutation{verb: verb, noun: "submissions",
				call: func(ctx context.Context, dry bool) (effect, error) {
					var r *wire.RejudgeResult
					var err error
					if problem != "" {
						r, err = c.RejudgeProblem(ctx, problem, dry)
					} else {
						r, err = c.RejudgeSubmission(ctx, submission, dry)
					}
					if err != nil {
						return effect{}, err
					}
					n, row := doneOrWould(r.DryRun, "Rejudged", "Would rejudge", r.Rejudged, r.WouldRejudge)
					return effect{result: r, changes: n, requested: r.Requested, fields: [][2]string{
						{"Requested", itoa(r.Requested)}, row,
					}}, nil
				}})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&submission, "submission", "", "the submission to rejudge")
	f.StringVar(&problem, "problem", "", "rejudge every judged submission of this problem")
	cmd.MarkFlagsMutuallyExclusive("submission", "problem")
	cmd.MarkFlagsOneRequired("submission", "problem")
	s.register(cmd)
	return cmd
}
