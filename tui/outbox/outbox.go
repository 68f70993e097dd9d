// Package outbox is the dashboard's Outbox view: the undelivered outbox rows with their
// attempts, next try and last error (from GET /admin/v1/outbox).
package outbox

import (
	"fmt"

	"oj/tui/listview"
	"oj/tui/shared"
)

// New returns the view.
func New(ctx *shared.Context) *listview.Plain {
	cols := []listview.Column{
		{Title: "ID", Width: 7}, {Title: "KIND", Width: 8}, {Title: "LANE", Width: 7}, {Title: "SUBMISSION", Width: 36, Narrow: 13},
		{Title: "AGE", Width: 7}, {Title: "TRIES", Width: 5}, {Title: "NEXT TRY", Width: 8}, {Title: "LAST ERROR", Width: 10, Flex: true},
	}
	return listview.NewPlain(ctx, "outbox", cols, "outbox is empty: every row was delivered", func(s *shared.Snapshot) ([]listview.Row, bool) {
		if s.Outbox == nil {
			return nil, false
		}
		now := ctx.Now()
		rows := make([]listview.Row, len(s.Outbox.Rows))
		for i, r := range s.Outbox.Rows {
			next := "now"
			if r.NextTry.After(now) {
				next = "in " + shared.Dur(r.NextTry.Sub(now).Truncate(1e9))
			}
			rows[i] = listview.Row{ID: fmt.Sprint(r.ID), Cells: []string{fmt.Sprint(r.ID), r.Kind, r.Lane, r.SubmissionID,
				shared.Ago(now, r.CreatedAt), fmt.Sprint(r.Attempts), next, shared.OneLine(r.LastError, 500)}}
		}
		return rows, true
	})
}
