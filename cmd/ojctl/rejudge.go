package main

import (
	"context"

	"github.com/spf13/cobra"

	"oj/core/api/client"
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
		RunE: a.act(&s, func(_ *cobra.Command, c *client.Client, _ []string) (mutation, error) {
			verb := "rejudge submission " + submission
			if problem != "" {
				verb = "rejudge the submissions of problem " + problem
			}
			return mutation{verb: verb, noun: "submissions",
				call: answered(func(ctx context.Context, dry bool) (*wire.RejudgeResult, error) {
					if problem != "" {
						return c.RejudgeProblem(ctx, problem, dry)
					}
					return c.RejudgeSubmission(ctx, submission, dry)
				}, func(r *wire.RejudgeResult, _ bool) effect {
					n, row := doneOrWould(r.DryRun, "Rejudged", "Would rejudge", r.Rejudged, r.WouldRejudge)
					return effect{changes: n, requested: r.Requested, fields: [][2]string{{"Requested", itoa(r.Requested)}, row}}
				})}, nil
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
