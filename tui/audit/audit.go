// Package audit is the dashboard's Audit view: the audited admin actions, newest first
// (from GET /admin/v1/audit).
package audit

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"oj/tui/listview"
	"oj/tui/shared"
)

// New returns the view.
func New(ctx *shared.Context) *listview.Plain {
	cols := []listview.Column{
		{Title: "AT", Width: 19}, {Title: "ACTOR", Width: 12}, {Title: "ACTION", Width: 12}, {Title: "DRY", Width: 3},
		{Title: "PARAMS", Width: 16, Flex: true}, {Title: "COUNTS", Width: 32},
	}
	return listview.NewPlain(ctx, "audit", cols, "no admin action yet", func(s *shared.Snapshot) ([]listview.Row, bool) {
		if s.Audit == nil {
			return nil, false
		}
		rows := make([]listview.Row, len(s.Audit))
		for i, e := range s.Audit {
			dry := ""
			if e.DryRun {
				dry = "yes"
			}
			rows[i] = listview.Row{ID: fmt.Sprint(e.ID), Cells: []string{e.At.UTC().Format("2006-01-02 15:04:05"), e.Actor, e.Action, dry,
				kv(e.Params), kv(e.ShownCounts())}}
		}
		return rows, true
	})
}

// kv renders a JSON object as k=v pairs in key order, what a dry run would have done
// (would_*) first: it is what the row is about, and the column may cut the rest.
func kv(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		wi, wj := strings.HasPrefix(keys[i], "would_"), strings.HasPrefix(keys[j], "would_")
		if wi != wj {
			return wi
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v, _ := json.Marshal(m[k])
		parts = append(parts, k+"="+strings.Trim(string(v), `"`))
	}
	return strings.Join(parts, " ")
}
