package main

import (
	"time"

	"github.com/spf13/cobra"

	"oj/core/api/client"
	"oj/core/wire"
)

func newWorkersCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "workers",
		Short: "Consumers per lane and the leases workers hold",
		Long: `Show each lane's consumers (Redis: pending entries, idle and inactive time) and
the leases held in PostgreSQL per worker (how many, how many expired, the oldest,
the next expiry), and each worker's state and languages (ojctl worker ls). A consumer inactive for long with pending entries is a dead worker;
its entries are reclaimed once PostgreSQL sees its leases expire.`,
		Example: `  ojctl workers
  ojctl workers -o json | jq '.leases[] | select(.expired > 0)'`,
		Args: cobra.NoArgs,
		RunE: fetched(a, func(cmd *cobra.Command, c *client.Client, _ []string) (*wire.Workers, error) {
			w, err := c.Workers(cmd.Context())
			if err != nil {
				return nil, err
			}
			if w.Lanes == nil {
				w.Lanes = []wire.LaneConsumers{}
			}
			if w.Leases == nil {
				w.Leases = []wire.LeaseSummary{}
			}
			if w.Workers == nil {
				w.Workers = []wire.WorkerInfo{}
			}
			return w, nil
		}, func(p *printer, w *wire.Workers) {
			p.heading("Consumers")
			var rows [][]string
			for _, l := range w.Lanes {
				for _, c := range l.Consumers {
					rows = append(rows, []string{l.Lane, c.Name, itoa(c.Pending), ms(c.IdleMS), inactive(c.InactiveMS)})
				}
			}
			p.table([]string{"LANE", "CONSUMER", "PENDING", "IDLE", "INACTIVE"}, rows)
			p.heading("Leases (PostgreSQL)")
			rows = nil
			for _, l := range w.Leases {
				rows = append(rows, []string{l.Owner, itoa(l.Count), itoa(l.Expired), stamp(l.OldestStarted), stamp(l.NextExpiry)})
			}
			p.table([]string{"WORKER", "LEASES", "EXPIRED", "OLDEST STARTED", "NEXT EXPIRY"}, rows)
			p.heading("Workers (state, languages: ojctl worker ls)")
			printWorkers(p, w.Workers, time.Now())
		}),
	}
}
