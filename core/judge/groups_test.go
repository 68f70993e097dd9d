package judge

import (
	"math"
	"testing"

	"oj/core/job"
	"oj/core/judge/problem"
)

func f(x float64) *float64 { return &x }

// oddEcho is the shape of a Kattis scoring problem: samples left out of the score, two
// subtasks of 50 that score only when all their cases pass, a secret group that is
// accepted when one subtask is.
func oddEcho() *problem.Group {
	return &problem.Group{Aggregate: "sum", Verdict: "worst_error", OnReject: "continue", Range: []float64{0, 100}, Groups: []problem.Group{
		{Name: "sample", Cases: []int{1}, Ignore: true, AcceptScore: f(0), Aggregate: "sum", Verdict: "first_error", OnReject: "continue", Range: []float64{0, 0}},
		{Name: "secret", Aggregate: "sum", Verdict: "first_error", AcceptIfAnyAccepted: true, OnReject: "continue", Range: []float64{0, 100}, Groups: []problem.Group{
			{Name: "g1", Cases: []int{2, 3}, AcceptScore: f(50), Aggregate: "min", Verdict: "worst_error", OnReject: "break", Range: []float64{0, 50}},
			{Name: "g2", Cases: []int{4, 5}, AcceptScore: f(50), Aggregate: "min", Verdict: "worst_error", OnReject: "break", Range: []float64{0, 50}},
		}},
	}}
}

func outcomes(vs ...job.Verdict) []caseOutcome {
	out := make([]caseOutcome, len(vs))
	for i, v := range vs {
		out[i] = caseOutcome{res: job.CaseResult{Index: i + 1, Verdict: v}}
		if v == job.VerdictAC {
			out[i].points = 1
		}
	}
	return out
}

func TestScoreGroups(t *testing.T) {
	const AC, WA, TLE, RE, SK, SE = job.VerdictAC, job.VerdictWA, job.VerdictTLE, job.VerdictRE, job.VerdictSK, job.VerdictSE
	cases := []struct {
		name    string
		got     []job.Verdict
		verdict job.Verdict
		score   float64
	}{
		{"all accepted", []job.Verdict{AC, AC, AC, AC, AC}, AC, 100},
		{"a failed sample costs nothing", []job.Verdict{WA, AC, AC, AC, AC}, AC, 100},
		{"one subtask: accepted, partial score", []job.Verdict{AC, AC, AC, WA, SK}, job.VerdictPC, 50},
		{"no subtask", []job.Verdict{AC, TLE, SK, WA, SK}, TLE, 0},
		{"worst error within a subtask", []job.Verdict{AC, AC, AC, AC, RE}, job.VerdictPC, 50},
		{"a checker failure is the judge's", []job.Verdict{AC, SE, SK, AC, AC}, SE, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := scoreGroups(problem.Spec{Scoring: oddEcho()}, outcomes(c.got...))
			if out.Verdict != c.verdict || out.Score != c.score {
				t.Fatalf("got %s %v, want %s %v; %+v", out.Verdict, out.Score, c.verdict, c.score, out.Cases)
			}
		})
	}
	// A validator's score.txt replaces accept_score; a sum over a range it exceeds is SE.
	g := &problem.Group{Cases: []int{1, 2}, Aggregate: "sum", Verdict: "worst_error", OnReject: "continue", Range: []float64{0, 10}}
	oc := outcomes(AC, AC)
	oc[0].score, oc[1].score = f(4), f(5)
	if out := scoreGroups(problem.Spec{Scoring: g}, oc); out.Verdict != job.VerdictPC || out.Score != 9 || out.Cases[0].Score != 4 {
		t.Fatalf("score.txt: %+v", out)
	}
	oc[1].score = f(7)
	if out := scoreGroups(problem.Spec{Scoring: g}, oc); out.Verdict != SE {
		t.Fatalf("over the range: %+v", out)
	}
}

// TestGroupBreakSkips: a group that breaks skips its remaining items once one is
// rejected, and a parent that breaks on that group's rejection skips its own.
func TestGroupBreakSkips(t *testing.T) {
	root := &problem.Group{Aggregate: "sum", Verdict: "worst_error", OnReject: "break", Groups: []problem.Group{
		{Name: "a", Cases: []int{1, 2, 3}, Aggregate: "sum", Verdict: "worst_error", OnReject: "break"},
		{Name: "b", Cases: []int{4}, Aggregate: "sum", Verdict: "worst_error", OnReject: "break"},
	}}
	tree := newGroupTree(root)
	judged := map[int]caseOutcome{1: outcomes(job.VerdictWA)[0]}
	skips := tree.finished(1, judged)
	for _, c := range []int{2, 3, 4} {
		if skips[c] == "" {
			t.Fatalf("case %d not skipped: %v", c, skips)
		}
	}
	root.OnReject = "continue"
	tree = newGroupTree(root)
	skips = tree.finished(1, judged)
	if skips[4] != "" || skips[2] == "" {
		t.Fatalf("continue on the root: %v", skips)
	}
}

// TestUnboundedGroupsStayFinite: a group without a range (Kattis's default) summing case
// scores that are each within the bound — as a validator's score.txt may give — is SE with
// the reason once its total passes job.MaxScore, never +Inf; and rounding such totals
// cannot overflow.
func TestUnboundedGroupsStayFinite(t *testing.T) {
	big := 0.9 * job.MaxScore
	g := &problem.Group{Aggregate: "sum", Verdict: "worst_error", OnReject: "continue", Groups: []problem.Group{
		{Name: "a", Cases: []int{1, 2}, Aggregate: "sum", Verdict: "worst_error", OnReject: "continue"},
		{Name: "b", Cases: []int{3}, Aggregate: "sum", Verdict: "worst_error", OnReject: "continue"},
	}}
	cs := outcomes(job.VerdictAC, job.VerdictAC, job.VerdictAC)
	for i := range cs {
		cs[i].score = f(big)
	}
	out := bounded(scoreGroups(problem.Spec{Scoring: g}, cs))
	if out.Verdict != job.VerdictSE || out.Score != 0 {
		t.Fatalf("got %s %v, want SE 0", out.Verdict, out.Score)
	}
	if want := "group a: score 1.8e+09 is outside oj's bound of ±1e+09"; out.Reason != want {
		t.Fatalf("reason %q, want %q", out.Reason, want)
	}
	if err := job.CheckOutcome(out); err != nil {
		t.Fatalf("the outcome still holds a score the store refuses: %v", err)
	}
	for _, x := range []float64{1e302, math.MaxFloat64, -math.MaxFloat64} {
		if r := round(x); r != x {
			t.Fatalf("round(%g) = %g", x, r)
		}
	}
	if r := round(123.4567891); r != 123.456789 {
		t.Fatalf("round keeps six decimals: %v", r)
	}
}

// TestBoundedRefusesNonFiniteScores: whatever the scoring computed, an outcome holding a
// score the store could not keep leaves the judge as SE with the reason.
func TestBoundedRefusesNonFiniteScores(t *testing.T) {
	out := bounded(job.Outcome{Verdict: job.VerdictAC, Score: math.Inf(1),
		Cases: []job.CaseResult{{Index: 1, Verdict: job.VerdictAC, Score: 50}, {Index: 2, Verdict: job.VerdictAC, Score: math.NaN()}}})
	if out.Verdict != job.VerdictSE || out.Score != 0 || out.Cases[0].Score != 50 || out.Cases[1].Score != 0 {
		t.Fatalf("got %+v", out)
	}
	if out.Reason != "score +Inf is not a finite number within ±1e+09" {
		t.Fatalf("reason %q", out.Reason)
	}
}
