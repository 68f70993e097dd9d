package wire

import "time"

// AuditEntry is one audited admin action.
type AuditEntry struct {
	ID     int64          `json:"id"`
	At     time.Time      `json:"at"`
	Actor  string         `json:"actor"`
	Action string         `json:"action"`
	DryRun bool           `json:"dry_run"`
	Params map[string]any `json:"params"`
	Counts map[string]any `json:"counts"`
}

// countTwins pairs each action's done count with the count of what a dry run would have
// done, as the answers and the audit rows name them.
var countTwins = [][2]string{{"reclaimed", "would_reclaim"}, {"replayed", "would_replay"}, {"purged", "would_purge"},
	{"rejudged", "would_rejudge"}, {"canceled", "would_cancel"}, {"removed", "would_remove"}, {"changed", "would_change"}}

// ShownCounts are the counts of the entry worth a table cell: the twin that is 0 by
// construction is left out (a real run's would_* count, a dry run's done count) and so
// is a trim's per-lane detail, which its sums already give. Rows written before the
// would_* counts existed keep the done count of their dry runs. The entry's Counts keep
// everything.
func (e AuditEntry) ShownCounts() map[string]any {
	out := make(map[string]any, len(e.Counts))
	for k, v := range e.Counts {
		out[k] = v
	}
	delete(out, "lanes")
	for _, t := range countTwins {
		done, would := t[0], t[1]
		if _, ok := out[would]; !ok {
			continue
		}
		if e.DryRun {
			delete(out, done)
		} else {
			delete(out, would)
		}
	}
	return out
}

// Audit is the answer of GET /admin/v1/audit, newest first.
type Audit struct {
	Entries []AuditEntry `json:"entries"`
}
