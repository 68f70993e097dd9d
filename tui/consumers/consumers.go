// Package consumers is the dashboard's Consumers view: every consumer of every lane's
// group, with its pending count, idle time (since its last attempted read or claim) and
// inactive time (since its last read that got entries; "—" when Redis does not report
// it, before 7.2, and "never" for a consumer that never got an entry), from
// GET /admin/v1/workers.
package consumers

import (
	"oj/tui/listview"
	"oj/tui/shared"
)

// New returns the view.
func New(ctx *shared.Context) *listview.Plain {
	cols := []listview.Column{
		{Title: "LANE", Width: 7}, {Title: "CONSUMER", Width: 20, Flex: true}, {Title: "PENDING", Width: 7},
		{Title: "IDLE", Width: 8}, {Title: "INACTIVE", Width: 8},
	}
	return listview.NewPlain(ctx, "consumers", cols, "no consumers", func(s *shared.Snapshot) ([]listview.Row, bool) {
		if s.Workers == nil {
			return nil, false
		}
		var rows []listview.Row
		for _, l := range s.Workers.Lanes {
			for _, c := range l.Consumers {
				rows = append(rows, listview.Row{ID: l.Lane + "/" + c.Name, Cells: []string{l.Lane, c.Name,
					shared.Num(c.Pending), shared.MS(c.IdleMS), inactive(c.InactiveMS)}})
			}
		}
		return rows, true
	})
}

// inactive formats inactive_ms: never a "0ms" that Redis did not say.
func inactive(v *int64) string {
	switch {
	case v == nil:
		return "—"
	case *v < 0:
		return "never"
	}
	return shared.MS(*v)
}
