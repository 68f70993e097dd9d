package main

import (
	"github.com/spf13/cobra"

	"oj/core/api/client"
	"oj/core/wire"
)

func newOutboxCmd(a *app) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "outbox [--limit N]",
		Short: "List undelivered outbox rows",
		Long: `List the outbox rows the dispatcher has not yet put on a stream, oldest first,
with their attempts, next try and last error. A growing backlog with errors means the
dispatcher cannot reach Redis; a backlog without errors means no dispatcher runs.`,
		Example: `  ojctl outbox
  ojctl outbox -o json | jq .backlog`,
		Args: cobra.NoArgs,
		RunE: fetched(a, func(cmd *cobra.Command, c *client.Client, _ []string) (*wire.Outbox, error) {
			return c.Outbox(cmd.Context(), limit)
		}, func(p *printer, o *wire.Outbox) {
			oldest := "-"
			if o.Backlog > 0 {
				oldest = ms(o.OldestAgeMS)
			}
			p.fields([][2]string{{"Backlog", itoa(o.Backlog)}, {"Oldest", oldest}})
			p.heading("Rows")
			rows := make([][]string, 0, len(o.Rows))
			for _, r := range o.Rows {
				rows = append(rows, []string{itoa(r.ID), r.Kind, r.Lane, r.SubmissionID, stamp(r.CreatedAt),
					itoa(r.Attempts), stamp(r.NextTry), r.LastError})
			}
			p.table([]string{"ID", "KIND", "LANE", "SUBMISSION", "CREATED", "ATTEMPTS", "NEXT TRY", "LAST ERROR"}, rows)
		}),
	}
	cmd.Flags().IntVar(&limit, "limit", 0, "at most this many rows (default: the server's)")
	return cmd
}
