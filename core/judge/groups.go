package judge

import (
	"fmt"
	"math"
	"strings"

	"oj/core/job"
	"oj/core/judge/problem"
)

// Scoring groups (problem.Group) are judged in case order, which a valid spec makes
// the groups' own order. After each case the groups it finishes are graded; a group
// that stops at its first rejection (on_reject: break) has its remaining cases skipped
// (SK) when one of its items is rejected.

// groupTree indexes a spec's scoring tree.
type groupTree struct {
	root   *problem.Group
	parent map[*problem.Group]*problem.Group
	holder map[int]*problem.Group // case → the group listing it
	path   map[*problem.Group]string
}

func newGroupTree(root *problem.Group) *groupTree {
	t := &groupTree{root: root, parent: map[*problem.Group]*problem.Group{}, holder: map[int]*problem.Group{},
		path: map[*problem.Group]string{}}
	var walk func(g *problem.Group, trail string)
	walk = func(g *problem.Group, trail string) {
		if g.Name != "" {
			trail = strings.TrimPrefix(trail+"/"+g.Name, "/")
		}
		t.path[g] = trail
		for _, c := range g.Cases {
			t.holder[c] = g
		}
		for k := range g.Groups {
			t.parent[&g.Groups[k]] = g
			walk(&g.Groups[k], trail)
		}
	}
	walk(root, "")
	return t
}

// name is how messages name a group.
func (t *groupTree) name(g *problem.Group) string {
	if p := t.path[g]; p != "" {
		return "group " + p
	}
	return "the problem's groups"
}

// finished grades the groups case i finishes, given the outcomes so far (judged, by
// case), and returns the cases to skip with why: the rest of every group that stops at
// its first rejection and just got one.
func (t *groupTree) finished(i int, judged map[int]caseOutcome) map[int]string {
	skips := map[int]string{}
	g := t.holder[i]
	item := problem.Item{Case: i}
	accepted := judged[i].res.Verdict == job.VerdictAC
	for g != nil {
		items := g.Items()
		pos := 0
		for k, it := range items {
			if it.Case == item.Case && it.Group == item.Group {
				pos = k
			}
		}
		done := pos == len(items)-1
		if !accepted && g.OnReject == problem.OnRejectBreak && !done {
			for _, it := range items[pos+1:] {
				for _, c := range itemCases(it) {
					skips[c] = fmt.Sprintf("skipped: %s stops at its first rejection (case %d)", t.name(g), i)
				}
			}
			done = true
		}
		if !done {
			break
		}
		r := evalGroup(g, judged)
		accepted = r.verdict == job.VerdictAC
		item = problem.Item{Group: g}
		g = t.parent[g]
	}
	return skips
}

func itemCases(it problem.Item) []int {
	if it.Case > 0 {
		return []int{it.Case}
	}
	var out []int
	var walk func(g *problem.Group)
	walk = func(g *problem.Group) {
		out = append(out, g.Cases...)
		for k := range g.Groups {
			walk(&g.Groups[k])
		}
	}
	walk(it.Group)
	return out
}

// groupResult is a graded group: judged is false when none of its items was.
type groupResult struct {
	verdict job.Verdict
	score   float64
	judged  bool
	why     string // for SE: what was wrong
}

// errorRank orders the verdicts as Kattis's worst_error does (judge error, run-time
// error, memory, time, output, wrong answer), then oj's own.
var errorRank = map[job.Verdict]int{job.VerdictSE: 9, job.VerdictRE: 8, job.VerdictMLE: 7, job.VerdictTLE: 6,
	job.VerdictOLE: 5, job.VerdictWA: 4, job.VerdictPE: 3, job.VerdictPC: 2}

// caseScore is a judged case's score in group g.
func caseScore(g *problem.Group, co caseOutcome) float64 {
	switch co.res.Verdict {
	case job.VerdictAC:
		if co.score != nil {
			return *co.score
		}
		return g.Accept() * co.points
	case job.VerdictPC:
		return g.RejectScore + (g.Accept()-g.RejectScore)*co.points
	}
	return g.RejectScore
}

// evalGroup grades g from the outcomes of its judged cases (skipped ones are absent or
// SK, and left out).
func evalGroup(g *problem.Group, judged map[int]caseOutcome) groupResult {
	var verdicts []job.Verdict
	var scores []float64
	for _, it := range g.Items() {
		if it.Case > 0 {
			co, ok := judged[it.Case]
			if !ok || co.res.Verdict == job.VerdictSK {
				continue
			}
			verdicts = append(verdicts, co.res.Verdict)
			scores = append(scores, caseScore(g, co))
			continue
		}
		r := evalGroup(it.Group, judged)
		if !r.judged || it.Group.Ignore {
			continue
		}
		if r.verdict == job.VerdictSE {
			return r
		}
		verdicts = append(verdicts, r.verdict)
		scores = append(scores, r.score)
	}
	if len(verdicts) == 0 {
		return groupResult{verdict: job.VerdictAC}
	}
	r := groupResult{verdict: job.VerdictAC, judged: true}
	allAC, anyAC := true, false
	for _, v := range verdicts {
		if v == job.VerdictSE {
			return groupResult{verdict: job.VerdictSE, judged: true, why: "a case's checker failed"}
		}
		if v == job.VerdictAC {
			anyAC = true
			continue
		}
		allAC = false
		switch g.Verdict {
		case problem.VerdictFirstError:
			if r.verdict == job.VerdictAC {
				r.verdict = v
			}
		case problem.VerdictWorstError:
			if r.verdict == job.VerdictAC || errorRank[v] > errorRank[r.verdict] {
				r.verdict = v
			}
		}
	}
	if g.AcceptIfAnyAccepted && anyAC {
		r.verdict = job.VerdictAC
	}
	lo, hi := g.Bounds()
	if g.Aggregate == problem.AggregatePassFail {
		if allAC {
			r.score = hi
		} else {
			r.score = max(lo, 0)
		}
	} else {
		r.score = problem.Aggregate(g.Aggregate, scores)
	}
	if !job.ScoreOK(r.score) {
		// A group without a range is unbounded in the package, not in oj: sums of
		// bounded scores are finite, and a total past the bound is refused here.
		return groupResult{verdict: job.VerdictSE, judged: true,
			why: groupLabel(g) + fmt.Sprintf("score %g is outside oj's bound of ±%g", r.score, job.MaxScore)}
	}
	const eps = 1e-9
	if r.score < lo-eps || r.score > hi+eps {
		return groupResult{verdict: job.VerdictSE, judged: true,
			why: groupLabel(g) + fmt.Sprintf("score %g is outside the range [%g, %g]", r.score, lo, hi)}
	}
	return r
}

// groupLabel starts a message about g with its name, when it has one.
func groupLabel(g *problem.Group) string {
	if g.Name == "" {
		return ""
	}
	return fmt.Sprintf("group %s: ", g.Name)
}

// scoreGroups decides a submission on a problem with scoring groups: its score is the
// root's, each case shows its own score, and the verdict is the root's — PC when it is
// accepted but short of the most the problem gives.
func scoreGroups(spec problem.Spec, cases []caseOutcome) job.Outcome {
	t := newGroupTree(spec.Scoring)
	judged := map[int]caseOutcome{}
	for _, c := range cases {
		judged[c.res.Index] = c
	}
	out := job.Outcome{Cases: make([]job.CaseResult, len(cases))}
	for i, c := range cases {
		if c.res.Verdict != job.VerdictSK {
			c.res.Score = round(caseScore(t.holder[c.res.Index], c))
		}
		out.Cases[i] = c.res
		out.TimeMS = max(out.TimeMS, c.res.TimeMS)
		out.MemoryKB = max(out.MemoryKB, c.res.MemoryKB)
	}
	r := evalGroup(spec.Scoring, judged)
	out.Verdict, out.Score = r.verdict, round(math.Max(r.score, 0))
	switch {
	case r.verdict == job.VerdictSE:
		out.Score, out.Reason = 0, r.why
	case r.verdict == job.VerdictAC && r.score < spec.Scoring.MaxScore()-1e-9:
		out.Verdict = job.VerdictPC
	}
	return out
}
