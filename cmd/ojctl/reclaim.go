package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"oj/core/api/client"
	"oj/core/wire"
)

func newReclaimCmd(a *app) *cobra.Command {
	var (
		lane    string
		minIdle time.Duration
		limit   int
		s       safety
	)
	cmd := &cobra.Command{
		Use:   "reclaim [--lane L] [--min-idle D] [--dry-run] [--yes]",
		Short: "Hand idle pending entries of dead workers to live ones",
		Long: `Reclaim pending entries idle at least --min-idle (default: the server's, 60s).
PostgreSQL decides each one: an expired lease is reclaimed (new attempt, so the old
worker's late write-back is fenced off); a live lease is left alone (still_leased); a
submission already terminal is acknowledged (terminal_acked); an entry whose
submission is gone is counted as missing; an entry that carries no usable submission
id is acknowledged and deleted (dropped). Workers reclaim by themselves; this is for
when they cannot (every worker of a lane died).`,
		Example: `  ojctl reclaim --dry-run
  ojctl reclaim --lane heavy --min-idle 5m
  ojctl reclaim --yes -o json`,
		Args: cobra.NoArgs,
		RunE: a.act(&s, func(cmd *cobra.Command, c *client.Client, _ []string) (mutation, error) {
			req := wire.ReclaimRequest{Lane: lane, Limit: limit}
			if cmd.Flags().Changed("min-idle") {
				v := minIdle.Milliseconds()
				req.MinIdleMS = &v
			}
			return mutation{verb: "reclaim idle pending entries", noun: "entries",
				call: answered(func(ctx context.Context, dry bool) (*wire.ReclaimResult, error) {
					req.DryRun = dry
					return c.Reclaim(ctx, req)
				}, func(r *wire.ReclaimResult, _ bool) effect {
					n, row := doneOrWould(r.DryRun, "Reclaimed", "Would reclaim", r.Reclaimed, r.WouldReclaim)
					return effect{changes: n, requested: -1, fields: [][2]string{
						{"Examined", itoa(r.Examined)},
						row,
						{"Still leased", itoa(r.StillLeased)},
						{"Terminal, acked", itoa(r.TerminalAcked)},
						{"Missing", itoa(r.Missing)},
						{"Dropped (malformed)", itoa(r.Dropped)},
					}}
				})}, nil
		}),
	}
	f := cmd.Flags()
	f.StringVar(&lane, "lane", "", "only this lane (default every lane)")
	f.DurationVar(&minIdle, "min-idle", 0, "only entries idle at least this long (default: the server's, 60s)")
	f.IntVar(&limit, "limit", 0, "examine at most this many entries (default: the server's, 1000)")
	s.register(cmd)
	return cmd
}
