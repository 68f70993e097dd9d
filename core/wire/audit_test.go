package wire

import (
	"reflect"
	"testing"
)

func TestShownCountsLeaveOutTheTwinThatIsZeroByConstruction(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		entry AuditEntry
		want  map[string]any
	}{
		{"a dry run shows what it would have done", AuditEntry{DryRun: true,
			Counts: map[string]any{"requested": 2.0, "rejudged": 0.0, "would_rejudge": 2.0}},
			map[string]any{"requested": 2.0, "would_rejudge": 2.0}},
		{"a real run shows what it did", AuditEntry{Counts: map[string]any{"requested": 2.0, "replayed": 1.0, "would_replay": 0.0}},
			map[string]any{"requested": 2.0, "replayed": 1.0}},
		{"a trim's lanes are in its sums", AuditEntry{DryRun: true, Counts: map[string]any{"length_before": 9.0,
			"length_after": 4.0, "removed": 0.0, "would_remove": 5.0, "lanes": []any{map[string]any{"lane": "light"}}}},
			map[string]any{"length_before": 9.0, "length_after": 4.0, "would_remove": 5.0}},
		{"a row from before would_* keeps its count", AuditEntry{DryRun: true, Counts: map[string]any{"canceled": 1.0}},
			map[string]any{"canceled": 1.0}},
		{"a refusal keeps its reason", AuditEntry{Counts: map[string]any{"canceled": 0.0, "would_cancel": 0.0, "refused": "terminal"}},
			map[string]any{"canceled": 0.0, "refused": "terminal"}},
	} {
		got := c.entry.ShownCounts()
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		if _, ok := c.entry.Counts["lanes"]; ok && len(c.entry.Counts) != 5 {
			t.Errorf("%s: ShownCounts changed the entry's own counts: %v", c.name, c.entry.Counts)
		}
	}
}
