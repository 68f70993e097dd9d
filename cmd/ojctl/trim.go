package main

import (
	"context"

	"github.com/spf13/cobra"

	"oj/core/api/client"
	"oj/core/wire"
)

func newTrimCmd(a *app) *cobra.Command {
	var (
		lane   string
		safe   bool
		maxLen int64
		s      safety
	)
	cmd := &cobra.Command{
		Use:   "trim [--lane L] (--safe | --maxlen N) [--dry-run] [--yes]",
		Short: "Trim the lanes' streams",
		Long: `Trim acknowledged entries off the lanes' streams so Redis memory stays bounded.

--safe drops only entries no one needs: XTRIM MINID at the oldest entry still
pending or not yet delivered, so it never loses work. Run it from cron.
--maxlen N keeps the newest N entries whatever their state: an emergency measure
(entries it drops while pending are re-driven from PostgreSQL by the reconciler).

The counts are stream lengths before and after, summed over the lanes trimmed; with
--dry-run nothing is trimmed and the length after is the length the trim would leave.`,
		Example: `  ojctl trim --safe --dry-run
  ojctl trim --lane light --safe
  ojctl trim --safe --yes -o json           # from cron
  ojctl trim --lane heavy --maxlen 100000`,
		Args: cobra.NoArgs,
		RunE: a.act(&s, func(_ *cobra.Command, c *client.Client, _ []string) (mutation, error) {
			req := wire.TrimRequest{Lane: lane, Strategy: "safe"}
			if !safe {
				if maxLen < 0 {
					return mutation{}, usagef("--maxlen %d: want a number >= 0", maxLen)
				}
				req.Strategy, req.MaxLen = "maxlen", &maxLen
			}
			return mutation{verb: "trim the streams (" + req.Strategy + ")", noun: "stream entries",
				call: answered(func(ctx context.Context, dry bool) (*wire.TrimResult, error) {
					req.DryRun = dry
					return c.Trim(ctx, req)
				}, func(r *wire.TrimResult, _ bool) effect {
					after := "Length after"
					if r.DryRun {
						after = "Length after (would be)"
					}
					fields := [][2]string{
						{"Strategy", r.Strategy},
						{"Length before", itoa(r.LengthBefore)},
						{after, itoa(r.LengthAfter)},
					}
					for _, l := range r.Lanes {
						fields = append(fields, [2]string{"Lane " + l.Lane, itoa(l.LengthBefore) + " → " + itoa(l.LengthAfter)})
					}
					return effect{changes: int(r.LengthBefore - r.LengthAfter), requested: -1, fields: fields}
				})}, nil
		}),
	}
	f := cmd.Flags()
	f.StringVar(&lane, "lane", "", "only this lane (default every lane)")
	f.BoolVar(&safe, "safe", false, "trim only what is acknowledged and delivered (XTRIM MINID)")
	f.Int64Var(&maxLen, "maxlen", -1, "keep the newest N entries, pending or not")
	cmd.MarkFlagsMutuallyExclusive("safe", "maxlen")
	cmd.MarkFlagsOneRequired("safe", "maxlen")
	s.register(cmd)
	return cmd
}
