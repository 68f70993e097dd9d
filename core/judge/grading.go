package judge

import (
	"slices"
	"strconv"

	"oj/core/job"
	"oj/core/judge/problem"
)

// A submission's per-group results are derived when it is read, not stored: a problem
// version is immutable and a submission's stored case results are those of the attempt
// that decided its verdict, so the groups are a function of the two. Deriving them with
// the grading the judge itself uses (evalGroup, score) keeps one implementation, and
// submissions judged before the groups were shown get them too.

// GroupGrade is one group of a problem version graded from a submission's case results.
type GroupGrade struct {
	// Path is the group's name prefixed by its ancestors' ("secret/group1"); Name its own.
	Path, Name      string
	Score, MaxScore float64
	// Verdict is the group's (PC when accepted short of its maximum); SK when none of
	// its cases was judged.
	Verdict job.Verdict
	// FirstFailing is the group's first case (by index) that was judged and not
	// accepted; 0 when there is none.
	FirstFailing int
	Groups       []GroupGrade
}

// GradeGroups grades spec's groups — the children of its scoring tree, or its subtasks —
// from a submission's stored case results; nil when spec has neither.
func GradeGroups(spec problem.Spec, cases []job.CaseResult) []GroupGrade {
	byIndex := make(map[int]job.CaseResult, len(cases))
	for _, c := range cases {
		byIndex[c.Index] = c
	}
	switch {
	case spec.Scoring != nil:
		t := newGroupTree(spec.Scoring)
		judged := make(map[int]caseOutcome, len(cases))
		for _, c := range cases {
			if g := t.holder[c.Index]; g != nil {
				judged[c.Index] = storedOutcome(g, c)
			}
		}
		return gradeChildren(t, spec.Scoring, judged, byIndex)
	case len(spec.Subtasks) > 0:
		out := make([]GroupGrade, 0, len(spec.Subtasks))
		for i, st := range spec.Subtasks {
			out = append(out, gradeSubtask(i+1, st, byIndex))
		}
		return out
	}
	return nil
}

// storedOutcome is a stored case result as evalGroup reads it: caseScore of the case in
// its group g gives back the score the judge stored.
func storedOutcome(g *problem.Group, c job.CaseResult) caseOutcome {
	co := caseOutcome{res: c}
	switch c.Verdict {
	case job.VerdictAC:
		s := c.Score
		co.score = &s
	case job.VerdictPC:
		if d := g.Accept() - g.RejectScore; d != 0 {
			co.points = (c.Score - g.RejectScore) / d
		}
	}
	return co
}

func gradeChildren(t *groupTree, g *problem.Group, judged map[int]caseOutcome, byIndex map[int]job.CaseResult) []GroupGrade {
	out := make([]GroupGrade, 0, len(g.Groups))
	for k := range g.Groups {
		sub := &g.Groups[k]
		r := evalGroup(sub, judged)
		gg := GroupGrade{Path: t.path[sub], Name: sub.Name, MaxScore: round(sub.MaxScore()), Verdict: r.verdict,
			Score: round(r.score), Groups: gradeChildren(t, sub, judged, byIndex)}
		switch {
		case !r.judged:
			gg.Verdict, gg.Score = job.VerdictSK, 0
		case r.verdict == job.VerdictSE:
			gg.Score = 0
		case r.verdict == job.VerdictAC && r.score < sub.MaxScore()-1e-9:
			gg.Verdict = job.VerdictPC
		}
		gg.FirstFailing = firstFailing(itemCases(problem.Item{Group: sub}), byIndex)
		out = append(out, gg)
	}
	return out
}

// gradeSubtask grades subtask n as score does: its score × the smallest fraction of
// points among its cases, each case's fraction read back from its stored share.
func gradeSubtask(n int, st problem.Subtask, byIndex map[int]job.CaseResult) GroupGrade {
	gg := GroupGrade{Path: SubtaskName(n), Name: SubtaskName(n), MaxScore: st.Score, Verdict: job.VerdictSK}
	share := 0.0
	if len(st.Cases) > 0 {
		share = st.Score / float64(len(st.Cases))
	}
	outs := make([]caseOutcome, 0, len(st.Cases))
	judged := false
	for _, i := range st.Cases {
		c, ok := byIndex[i]
		if !ok {
			c = job.CaseResult{Index: i, Verdict: job.VerdictSK}
		}
		co := caseOutcome{res: c}
		switch {
		case c.Verdict == job.VerdictAC && share == 0:
			co.points = 1
		case share != 0:
			co.points = c.Score / share
		}
		judged = judged || c.Verdict != job.VerdictSK
		outs = append(outs, co)
	}
	gg.FirstFailing = firstFailing(st.Cases, byIndex)
	if !judged {
		return gg
	}
	r := score(problem.Spec{Subtasks: []problem.Subtask{st}}, outs)
	gg.Score, gg.Verdict = r.Score, r.Verdict
	return gg
}

// SubtaskName is how a subtask is named among a problem's and a submission's groups.
func SubtaskName(n int) string { return "subtask " + strconv.Itoa(n) }

// firstFailing is the first of cases (by index) judged and not accepted; 0 for none.
func firstFailing(cases []int, byIndex map[int]job.CaseResult) int {
	sorted := slices.Clone(cases)
	slices.Sort(sorted)
	for _, i := range sorted {
		if c, ok := byIndex[i]; ok && c.Verdict != job.VerdictAC && c.Verdict != job.VerdictSK {
			return i
		}
	}
	return 0
}
