package judge

import (
	"testing"

	"oj/core/job"
	"oj/core/judge/problem"
)

// A submission's groups, graded again from the case results the judge stored, give the
// judge's own grades: one subtask passing, the other failing at its second case.
func TestGradeGroupsFromStoredCases(t *testing.T) {
	const AC, WA, SK = job.VerdictAC, job.VerdictWA, job.VerdictSK
	spec := problem.Spec{Scoring: oddEcho()}
	out := scoreGroups(spec, outcomes(AC, AC, AC, AC, WA))
	got := GradeGroups(spec, out.Cases)
	if len(got) != 2 || got[0].Path != "sample" || got[1].Path != "secret" || len(got[1].Groups) != 2 {
		t.Fatalf("groups %+v", got)
	}
	g1, g2 := got[1].Groups[0], got[1].Groups[1]
	if g1.Path != "secret/g1" || g1.Score != 50 || g1.MaxScore != 50 || g1.Verdict != AC || g1.FirstFailing != 0 {
		t.Errorf("g1 = %+v, want 50/50 AC", g1)
	}
	if g2.Path != "secret/g2" || g2.Score != 0 || g2.MaxScore != 50 || g2.Verdict != WA || g2.FirstFailing != 5 {
		t.Errorf("g2 = %+v, want 0/50 WA at case 5", g2)
	}
	if s := got[1]; s.Score != out.Score || s.MaxScore != 100 || s.Verdict != job.VerdictPC {
		t.Errorf("secret = %+v, want the submission's %v of 100, PC", s, out.Score)
	}

	// Subtasks: the first passes, the second is skipped after a failure.
	sub := problem.Spec{Subtasks: []problem.Subtask{{Score: 40, Cases: []int{1, 2}}, {Score: 60, Cases: []int{3, 4}}}}
	o := score(sub, outcomes(AC, AC, WA, SK))
	gs := GradeGroups(sub, o.Cases)
	if len(gs) != 2 || gs[0].Score != 40 || gs[0].Verdict != AC || gs[1].Score != 0 || gs[1].Verdict != WA ||
		gs[1].FirstFailing != 3 || gs[1].Path != "subtask 2" || gs[0].Score+gs[1].Score != o.Score {
		t.Errorf("subtasks = %+v, submission %v", gs, o.Score)
	}
	if GradeGroups(problem.Spec{}, o.Cases) != nil {
		t.Error("a problem without groups has groups")
	}
}
