package main

import (
	"context"

	"github.com/spf13/cobra"

	"oj/core/api/client"
	"oj/core/wire"
)

func newCancelCmd(a *app) *cobra.Command {
	var s safety
	cmd := &cobra.Command{
		Use:   "cancel ID [--dry-run] [--yes]",
		Short: "Cancel a queued or running submission",
		Long: `Cancel a submission that is queued or running. The cancel bumps its attempt, so a
result the running worker writes back later is fenced off and cannot overwrite it.
A submission already finished, dead or canceled is refused (HTTP 409, exit 1).`,
		Example: `  ojctl cancel 0190a3c4-...
  ojctl cancel 0190a3c4-... --yes -o json`,
		Args: cobra.ExactArgs(1),
		RunE: a.act(&s, func(_ *cobra.Command, c *client.Client, args []string) (mutation, error) {
			return mutation{verb: "cancel submission " + args[0], noun: "submissions",
				call: answered(func(ctx context.Context, dry bool) (*wire.CancelResult, error) {
					return c.Cancel(ctx, args[0], dry)
				}, func(r *wire.CancelResult, _ bool) effect {
					n, row := doneOrWould(r.DryRun, "Canceled", "Would cancel", r.Canceled, r.WouldCancel)
					return effect{changes: n, requested: 1, fields: [][2]string{row}}
				})}, nil
		}),
	}
	s.register(cmd)
	return cmd
}
