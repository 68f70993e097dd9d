package render

import (
	"encoding/json"
	"math"
	"strconv"

	"oj/core/job"
	"oj/core/judge"
	"oj/core/judge/problem"
	"oj/core/wire"
)

// Grading is how a problem version scores, read from its meta: whether it is pass/fail,
// and the groups a submission's results are graded by (judge.GradeGroups).
type Grading struct {
	// PassFail: the verdict is all — no subtasks, no scoring groups, and judging stops
	// at the first failure (Kattis pass-fail, Polygon without points, ICPC style). How
	// many cases passed before the failure is no score: the submission's score is null
	// and its cases' scores 0.
	PassFail bool
	// Spec holds the version's Scoring tree and Subtasks only.
	Spec problem.Spec
}

// GradingOf reads a version's meta: "subtasks", "scoring_tree" (ScoringMeta) and
// "stop_on_first_failure". A version recorded before its scoring tree was kept in meta
// has scoring groups but no tree here: its submissions show no groups.
func GradingOf(meta map[string]any) Grading {
	var g Grading
	if raw, ok := meta["subtasks"].([]any); ok {
		for _, x := range raw {
			m, _ := x.(map[string]any)
			st := problem.Subtask{}
			st.Score, _ = m["score"].(float64)
			cases, _ := m["cases"].([]any)
			for _, c := range cases {
				if f, ok := c.(float64); ok {
					st.Cases = append(st.Cases, int(f))
				}
			}
			g.Spec.Subtasks = append(g.Spec.Subtasks, st)
		}
	}
	if raw, ok := meta["scoring_tree"]; ok && raw != nil {
		if b, err := json.Marshal(raw); err == nil {
			var gm groupMeta
			if json.Unmarshal(b, &gm) == nil {
				root := gm.group()
				g.Spec.Scoring = &root
			}
		}
	}
	scoring, _ := meta["scoring"].(bool)
	stop, _ := meta["stop_on_first_failure"].(bool)
	g.PassFail = stop && !scoring && len(g.Spec.Subtasks) == 0
	return g
}

// groupMeta is a scoring group as a version's meta keeps it: problem.Group with JSON
// names, its range as text (a range may be unbounded, which JSON numbers cannot say).
type groupMeta struct {
	Name                string      `json:"name,omitempty"`
	Cases               []int       `json:"cases,omitempty"`
	Groups              []groupMeta `json:"groups,omitempty"`
	Aggregate           string      `json:"aggregate,omitempty"`
	Verdict             string      `json:"verdict,omitempty"`
	AcceptIfAnyAccepted bool        `json:"accept_if_any_accepted,omitempty"`
	Ignore              bool        `json:"ignore,omitempty"`
	OnReject            string      `json:"on_reject,omitempty"`
	AcceptScore         *float64    `json:"accept_score,omitempty"`
	RejectScore         float64     `json:"reject_score,omitempty"`
	Range               []string    `json:"range,omitempty"`
}

// ScoringMeta is a scoring tree as a version's meta keeps it ("scoring_tree"); nil for
// none.
func ScoringMeta(g *problem.Group) any {
	if g == nil {
		return nil
	}
	return metaOf(g)
}

func metaOf(g *problem.Group) groupMeta {
	m := groupMeta{Name: g.Name, Cases: g.Cases, Aggregate: g.Aggregate, Verdict: g.Verdict,
		AcceptIfAnyAccepted: g.AcceptIfAnyAccepted, Ignore: g.Ignore, OnReject: g.OnReject, AcceptScore: g.AcceptScore,
		RejectScore: g.RejectScore}
	if m.AcceptScore != nil && (math.IsNaN(*m.AcceptScore) || math.IsInf(*m.AcceptScore, 0)) {
		m.AcceptScore = nil
	}
	if math.IsNaN(m.RejectScore) || math.IsInf(m.RejectScore, 0) {
		m.RejectScore = 0
	}
	for _, x := range g.Range {
		m.Range = append(m.Range, strconv.FormatFloat(x, 'g', -1, 64))
	}
	for k := range g.Groups {
		m.Groups = append(m.Groups, metaOf(&g.Groups[k]))
	}
	return m
}

func (m groupMeta) group() problem.Group {
	g := problem.Group{Name: m.Name, Cases: m.Cases, Aggregate: m.Aggregate, Verdict: m.Verdict,
		AcceptIfAnyAccepted: m.AcceptIfAnyAccepted, Ignore: m.Ignore, OnReject: m.OnReject, AcceptScore: m.AcceptScore,
		RejectScore: m.RejectScore}
	for _, s := range m.Range {
		x, _ := strconv.ParseFloat(s, 64)
		g.Range = append(g.Range, x)
	}
	for _, sub := range m.Groups {
		g.Groups = append(g.Groups, sub.group())
	}
	return g
}

// Wire is the grading as GET of a problem shows it.
func (g Grading) Wire() wire.Grading {
	out := wire.Grading{Groups: []wire.ProblemGroup{}}
	switch {
	case g.PassFail:
		out.Mode = "pass_fail"
		return out
	case g.Spec.Scoring != nil:
		out.Mode, out.Aggregate = "groups", g.Spec.Scoring.Aggregate
		for k := range g.Spec.Scoring.Groups {
			out.Groups = append(out.Groups, problemGroup(&g.Spec.Scoring.Groups[k], ""))
		}
		out.MaxScore = finite(g.Spec.Scoring.MaxScore())
	case len(g.Spec.Subtasks) > 0:
		out.Mode, out.Aggregate = "subtasks", problem.AggregateSum
		total := 0.0
		for i, st := range g.Spec.Subtasks {
			name := judge.SubtaskName(i + 1)
			out.Groups = append(out.Groups, wire.ProblemGroup{Name: name, Path: name, MaxScore: st.Score,
				Aggregate: problem.AggregateMin, Cases: nonNilInts(st.Cases), Groups: []wire.ProblemGroup{}})
			total += st.Score
		}
		out.MaxScore = finite(total)
	default:
		out.Mode, out.Aggregate = "cases", problem.AggregateSum
		out.MaxScore = finite(100)
	}
	return out
}

func problemGroup(g *problem.Group, parent string) wire.ProblemGroup {
	path := g.Name
	if parent != "" {
		path = parent + "/" + g.Name
	}
	if g.Name == "" {
		path = parent
	}
	out := wire.ProblemGroup{Name: g.Name, Path: path, Aggregate: g.Aggregate, Verdict: g.Verdict, OnReject: g.OnReject,
		AcceptScore: g.AcceptScore, RejectScore: g.RejectScore, AcceptIfAnyAccepted: g.AcceptIfAnyAccepted, Ignore: g.Ignore,
		Cases: nonNilInts(g.Cases), Groups: []wire.ProblemGroup{}}
	if m := finite(g.MaxScore()); m != nil {
		out.MaxScore = *m
	}
	for k := range g.Groups {
		out.Groups = append(out.Groups, problemGroup(&g.Groups[k], path))
	}
	return out
}

// finite is &x, or nil for a score JSON cannot carry.
func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func nonNilInts(xs []int) []int {
	if xs == nil {
		return []int{}
	}
	return xs
}

// groupResults grades a judged submission's groups; empty before its verdict and for a
// version without groups.
func groupResults(g Grading, s judgedCases) []wire.GroupResult {
	out := []wire.GroupResult{}
	if s.verdict == "" || g.PassFail {
		return out
	}
	return appendGrades(out, judge.GradeGroups(g.Spec, s.cases))
}

type judgedCases struct {
	verdict job.Verdict
	cases   []job.CaseResult
}

func appendGrades(out []wire.GroupResult, gs []judge.GroupGrade) []wire.GroupResult {
	for _, gg := range gs {
		r := wire.GroupResult{Name: gg.Name, Path: gg.Path, Verdict: string(gg.Verdict),
			Groups: appendGrades([]wire.GroupResult{}, gg.Groups)}
		if x := finite(gg.Score); x != nil {
			r.Score = *x
		}
		if x := finite(gg.MaxScore); x != nil {
			r.MaxScore = *x
		}
		if gg.FirstFailing > 0 {
			n := gg.FirstFailing
			r.FirstFailingCase = &n
		}
		out = append(out, r)
	}
	return out
}
