package main

import (
	"time"

	"github.com/spf13/cobra"

	"oj/core/api/client"
	"oj/core/wire"
)

func newPELCmd(a *app) *cobra.Command {
	var (
		lane    string
		minIdle time.Duration
		limit   int
	)
	cmd := &cobra.Command{
		Use:   "pel [--lane L] [--min-idle D] [--limit N]",
		Short: "List pending stream entries (delivered, not acknowledged)",
		Long: `List the entries of the lanes' pending entries lists: delivered to a worker and
not yet acknowledged. Each row has the stream id, the submission, the consumer that
holds it, how long it has been idle and how often it was delivered. An entry idle far
beyond the lease usually belongs to a dead worker: "ojctl reclaim" hands it on, after
PostgreSQL confirms the lease expired.`,
		Example: `  ojctl pel
  ojctl pel --lane heavy --min-idle 5m
  ojctl pel -o json | jq -r '.entries[].submission_id'`,
		Args: cobra.NoArgs,
		RunE: fetched(a, func(cmd *cobra.Command, c *client.Client, _ []string) (wire.PEL, error) {
			entries, err := c.PEL(cmd.Context(), lane, minIdle, limit)
			if entries == nil {
				entries = []wire.PendingEntry{}
			}
			return wire.PEL{Entries: entries}, err
		}, func(p *printer, pel wire.PEL) {
			rows := make([][]string, 0, len(pel.Entries))
			for _, e := range pel.Entries {
				sub := e.SubmissionID
				if e.Deleted {
					sub = "(trimmed)"
				}
				rows = append(rows, []string{e.Lane, e.StreamID, sub, e.Consumer, ms(e.IdleMS), itoa(e.Deliveries)})
			}
			p.table([]string{"LANE", "STREAM ID", "SUBMISSION", "CONSUMER", "IDLE", "DELIVERIES"}, rows)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&lane, "lane", "", "only this lane (light, heavy, rejudge; default every lane)")
	f.DurationVar(&minIdle, "min-idle", 0, "only entries idle at least this long, e.g. 90s")
	f.IntVar(&limit, "limit", 0, "at most this many entries (default: the server's)")
	return cmd
}
