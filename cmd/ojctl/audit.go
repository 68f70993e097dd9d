package main

import (
	"github.com/spf13/cobra"

	"oj/core/api/client"
	"oj/core/wire"
)

func newAuditCmd(a *app) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "audit [--limit N]",
		Short: "The audit log of admin actions, newest first",
		Long: `Every mutating admin action (reclaim, replay, trim, rejudge, cancel, purge),
dry runs included, writes an audit row: who (the token's name), what, when, with
which parameters and what it counted. A dry run did nothing: its row counts what
it would have done in the would_* fields, as its answer did. The table leaves out
the count that is 0 by construction (a dry run's done count, a real run's would_*)
and a trim's per-lane detail; -o json has every count.`,
		Example: `  ojctl audit
  ojctl audit --limit 200 -o json | jq '.entries[] | select(.action == "trim")'`,
		Args: cobra.NoArgs,
		RunE: fetched(a, func(cmd *cobra.Command, c *client.Client, _ []string) (wire.Audit, error) {
			entries, err := c.Audit(cmd.Context(), limit)
			if entries == nil {
				entries = []wire.AuditEntry{}
			}
			return wire.Audit{Entries: entries}, err
		}, func(p *printer, audit wire.Audit) {
			rows := make([][]string, 0, len(audit.Entries))
			for _, e := range audit.Entries {
				rows = append(rows, []string{itoa(e.ID), stamp(e.At), e.Actor, e.Action, yesNo(e.DryRun),
					compactJSON(e.Params), compactJSON(e.ShownCounts())})
			}
			p.table([]string{"ID", "AT", "WHO", "ACTION", "DRY RUN", "PARAMS", "COUNTS"}, rows)
		}),
	}
	cmd.Flags().IntVar(&limit, "limit", 50, "at most this many entries")
	return cmd
}
