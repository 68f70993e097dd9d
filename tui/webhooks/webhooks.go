// Package webhooks is the dashboard's Webhooks view: every endpoint with its delivery
// backlog (from GET /admin/v1/webhooks). Endpoints in trouble come first and say so in
// capitals — FAILING (every try since then failed) or DISABLED — so they stand out
// from the healthy ones however long the list.
package webhooks

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"oj/core/wire"
	"oj/tui/listview"
	"oj/tui/shared"
)

// New returns the view.
func New(ctx *shared.Context) *listview.Plain {
	cols := []listview.Column{
		{Title: "STATE", Width: 9}, {Title: "URL", Width: 40, Narrow: 22}, {Title: "PENDING", Width: 7}, {Title: "RETRY", Width: 5},
		{Title: "FAILED", Width: 6}, {Title: "OK 24H", Width: 6}, {Title: "OLDEST", Width: 7}, {Title: "LAST ERROR", Width: 10, Flex: true},
	}
	return listview.NewPlain(ctx, "webhooks", cols, "no webhook endpoints: ojctl webhook add URL registers one",
		func(s *shared.Snapshot) ([]listview.Row, bool) {
			if s.Webhooks == nil {
				return nil, false
			}
			now := ctx.Now()
			items := append([]wire.Webhook(nil), s.Webhooks.Items...)
			sort.SliceStable(items, func(i, j int) bool { return rank(items[i]) < rank(items[j]) })
			rows := make([]listview.Row, len(items))
			for i, w := range items {
				oldest := "-"
				if w.Stats.OldestPending != nil {
					oldest = shared.Ago(now, *w.Stats.OldestPending)
				}
				last := lastError(now, w)
				if !w.Enabled {
					last = strings.TrimSpace(w.DisabledReason + "; " + last)
				}
				rows[i] = listview.Row{ID: w.ID, Cells: []string{state(w), w.URL, fmt.Sprint(w.Stats.Pending),
					fmt.Sprint(w.Stats.Retrying), fmt.Sprint(w.Stats.Failed), fmt.Sprint(w.Stats.Delivered), oldest,
					shared.OneLine(strings.TrimSuffix(last, "; "), 500)}}
			}
			return rows, true
		})
}

// lastError is an endpoint's last error with its age, marked as past when a delivery
// succeeded after it (failing_since is cleared then), so that an endpoint that recovered
// does not read as failing.
func lastError(now time.Time, w wire.Webhook) string {
	if w.LastError == "" {
		return ""
	}
	at := ""
	if w.LastErrorAt != nil {
		at = " " + shared.Ago(now, *w.LastErrorAt) + " ago"
	}
	if w.Enabled && w.FailingSince == nil {
		return "recovered; failed" + at + ": " + w.LastError
	}
	return strings.TrimPrefix(at+": ", " ") + w.LastError
}

// rank orders endpoints: failing, then disabled, then those with failed deliveries,
// then the healthy ones.
func rank(w wire.Webhook) int {
	switch {
	case w.Enabled && w.FailingSince != nil:
		return 0
	case !w.Enabled:
		return 1
	case w.Stats.Failed > 0:
		return 2
	}
	return 3
}

func state(w wire.Webhook) string {
	switch {
	case !w.Enabled:
		return "DISABLED"
	case w.FailingSince != nil:
		return "FAILING"
	}
	return "ok"
}
