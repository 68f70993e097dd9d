// Package workers is the dashboard's Workers view: the live leases each worker holds in
// PostgreSQL (from GET /admin/v1/workers).
package workers

import (
	"oj/tui/listview"
	"oj/tui/shared"
)

// New returns the view.
func New(ctx *shared.Context) *listview.Plain {
	cols := []listview.Column{
		{Title: "WORKER", Width: 20, Flex: true}, {Title: "LEASES", Width: 6}, {Title: "EXPIRED", Width: 7},
		{Title: "OLDEST", Width: 8}, {Title: "NEXT EXPIRY", Width: 11},
	}
	return listview.NewPlain(ctx, "workers", cols, "no worker holds a lease", func(s *shared.Snapshot) ([]listview.Row, bool) {
		if s.Workers == nil {
			return nil, false
		}
		now := ctx.Now()
		rows := make([]listview.Row, len(s.Workers.Leases))
		for i, l := range s.Workers.Leases {
			next := "in " + shared.Dur(l.NextExpiry.Sub(now).Truncate(1e9))
			if l.NextExpiry.Before(now) {
				next = shared.Ago(now, l.NextExpiry) + " ago"
			}
			rows[i] = listview.Row{ID: l.Owner, Cells: []string{l.Owner, shared.Num(int64(l.Count)), shared.Num(int64(l.Expired)),
				shared.Ago(now, l.OldestStarted), next}}
		}
		return rows, true
	})
}
