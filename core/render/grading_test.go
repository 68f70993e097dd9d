package render

import (
	"encoding/json"
	"math"
	"testing"

	"oj/core/judge/problem"
)

// A version's scoring tree survives its meta's JSON (an unbounded range too), and a
// version that stops at the first failure without subtasks or groups is pass/fail.
func TestGradingOfMeta(t *testing.T) {
	one := 30.0
	root := &problem.Group{Aggregate: "sum", Range: []float64{0, math.Inf(1)}, Groups: []problem.Group{
		{Name: "a", Cases: []int{1}, AcceptScore: &one, Aggregate: "min", OnReject: "break", Range: []float64{0, 30}}}}
	b, err := json.Marshal(map[string]any{"scoring": true, "scoring_tree": ScoringMeta(root)})
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	g := GradingOf(meta)
	if g.PassFail || g.Spec.Scoring == nil || !math.IsInf(g.Spec.Scoring.Range[1], 1) ||
		g.Spec.Scoring.Groups[0].Name != "a" || *g.Spec.Scoring.Groups[0].AcceptScore != 30 {
		t.Fatalf("read back %+v", g.Spec.Scoring)
	}
	w := g.Wire()
	if w.Mode != "groups" || len(w.Groups) != 1 || w.Groups[0].Path != "a" || w.Groups[0].MaxScore != 30 {
		t.Fatalf("wire %+v", w)
	}
	if !GradingOf(map[string]any{"stop_on_first_failure": true}).PassFail {
		t.Error("stop at the first failure without subtasks is not pass/fail")
	}
	if GradingOf(map[string]any{"stop_on_first_failure": true, "subtasks": []any{map[string]any{"score": 50.0, "cases": []any{1.0}}}}).PassFail {
		t.Error("subtasks are pass/fail")
	}
	if m := GradingOf(map[string]any{}).Wire(); m.Mode != "cases" || *m.MaxScore != 100 {
		t.Errorf("every case weighing the same: %+v", m)
	}
}
