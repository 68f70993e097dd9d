package problem

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"oj/core/job"
)

// Group is one node of a scoring tree (problem.yaml `scoring`), the Kattis format's test
// data groups. Every case belongs to exactly one group; a group's items — its cases and
// its groups — are judged in case order (each group at the place of its first case), and
// that order must be the case numbers' (a converted package numbers its cases so).
//
// A case's score is AcceptScore when accepted (or what the kattis validator wrote in
// score.txt, or AcceptScore × score_multiplier.txt), RejectScore otherwise. A group's
// score aggregates its judged items' scores (sum, min, max, avg; pass_fail: the top of
// Range when every item is accepted, else 0); its verdict is worst_error (the worst
// verdict among its items, as Kattis ranks them), first_error (the first item's that is
// not accepted) or always_accept, and accepted when AcceptIfAnyAccepted and one item
// is. OnReject break (the default) stops judging a group at its first rejected item:
// the items after it are skipped. Ignore leaves a group out of its parent's verdict and
// score (Kattis's ignore_sample). A score outside Range is the judge's error (SE).
type Group struct {
	Name                string    `yaml:"name,omitempty"`
	Cases               []int     `yaml:"cases,omitempty"`
	Groups              []Group   `yaml:"groups,omitempty"`
	Aggregate           string    `yaml:"aggregate,omitempty"`
	Verdict             string    `yaml:"verdict,omitempty"`
	AcceptIfAnyAccepted bool      `yaml:"accept_if_any_accepted,omitempty"`
	Ignore              bool      `yaml:"ignore,omitempty"`
	OnReject            string    `yaml:"on_reject,omitempty"`
	AcceptScore         *float64  `yaml:"accept_score,omitempty"`
	RejectScore         float64   `yaml:"reject_score,omitempty"`
	Range               []float64 `yaml:"range,omitempty"`
}

// The aggregations, verdict modes and on_reject values of a group.
const (
	AggregateSum      = "sum"
	AggregateMin      = "min"
	AggregateMax      = "max"
	AggregateAvg      = "avg"
	AggregatePassFail = "pass_fail"
	VerdictWorstError = "worst_error"
	VerdictFirstError = "first_error"
	VerdictAlways     = "always_accept"
	OnRejectBreak     = "break"
	OnRejectContinue  = "continue"

	aggregates   = "sum, min, max, avg, pass_fail"
	verdictModes = "worst_error, first_error, always_accept"

	maxGroupDepth = 16
	maxGroups     = 1000
)

// Accept is the score of an accepted case of g without a score of its own.
func (g *Group) Accept() float64 {
	if g.AcceptScore == nil {
		return 1
	}
	return *g.AcceptScore
}

// Bounds returns g's score range: Range, or unbounded.
func (g *Group) Bounds() (lo, hi float64) {
	if len(g.Range) == 2 {
		return g.Range[0], g.Range[1]
	}
	return math.Inf(-1), math.Inf(1)
}

// MaxScore is the most g can score: the top of its range when finite, else what its
// items can score at most when accepted (cases their accept score).
func (g *Group) MaxScore() float64 {
	if _, hi := g.Bounds(); !math.IsInf(hi, 1) {
		return hi
	}
	var xs []float64
	for range g.Cases {
		xs = append(xs, g.Accept())
	}
	for i := range g.Groups {
		if !g.Groups[i].Ignore {
			xs = append(xs, g.Groups[i].MaxScore())
		}
	}
	return Aggregate(g.Aggregate, xs)
}

// Aggregate combines scores as a group's aggregation does (pass_fail sums, the caller
// decides).
func Aggregate(mode string, xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	switch mode {
	case AggregateMin:
		return slices.Min(xs)
	case AggregateMax:
		return slices.Max(xs)
	case AggregateAvg:
		sum := 0.0
		for _, x := range xs {
			sum += x
		}
		return sum / float64(len(xs))
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum
}

// Item is one item of a group in judging order: a case (Case > 0) or a group.
type Item struct {
	Case  int
	Group *Group
}

// Items returns g's cases and groups in judging order: by case number, each group at
// its first case.
func (g *Group) Items() []Item {
	items := make([]Item, 0, len(g.Cases)+len(g.Groups))
	for _, c := range g.Cases {
		items = append(items, Item{Case: c})
	}
	for i := range g.Groups {
		items = append(items, Item{Group: &g.Groups[i]})
	}
	slices.SortStableFunc(items, func(a, b Item) int { return a.first() - b.first() })
	return items
}

func (it Item) first() int {
	if it.Case > 0 {
		return it.Case
	}
	return it.Group.firstCase()
}

func (g *Group) firstCase() int {
	first := math.MaxInt
	for _, c := range g.Cases {
		first = min(first, c)
	}
	for i := range g.Groups {
		first = min(first, g.Groups[i].firstCase())
	}
	return first
}

// GroupOf returns the path of names (root first, the root's own name if any) of the
// group holding case i.
func (s Spec) GroupOf(i int) []string {
	if s.Scoring == nil {
		return nil
	}
	var walk func(g *Group, trail []string) []string
	walk = func(g *Group, trail []string) []string {
		if g.Name != "" {
			trail = append(trail, g.Name)
		}
		if slices.Contains(g.Cases, i) {
			return trail
		}
		for k := range g.Groups {
			if t := walk(&g.Groups[k], slices.Clone(trail)); t != nil {
				return t
			}
		}
		return nil
	}
	return walk(s.Scoring, nil)
}

// checkScoring checks the scoring tree: known modes, every case in exactly one group,
// judging order the case order, bounded depth and size; subtasks and stopping at the
// first failure are other ways of scoring, so neither may come with it.
func (s *Spec) checkScoring(cases int, lines lineMap) error {
	if s.Scoring == nil {
		return nil
	}
	at := lines.at("scoring")
	if len(s.Subtasks) > 0 {
		return specError(ErrBadSubtasks, at, "scoring: a problem scores by subtasks or by scoring groups, not both")
	}
	if s.StopOnFirstFailure {
		return specError(ErrBadSubtasks, at, "scoring: stop_on_first_failure does not go with scoring groups: say on_reject: break on the groups that stop")
	}
	owner := make([]string, cases+1)
	count := 0
	var order []int
	var walk func(g *Group, key string, depth int) error
	walk = func(g *Group, key string, depth int) error {
		count++
		if depth > maxGroupDepth || count > maxGroups {
			return specError(ErrBadSubtasks, lines.at(key), "%s: scoring groups nest at most %d deep, %d in all", key, maxGroupDepth, maxGroups)
		}
		if len(g.Name) > 200 || strings.ContainsAny(g.Name, "\x00\n") {
			return specError(ErrBadSubtasks, lines.at(key+".name"), "%s.name: want at most 200 characters on one line", key)
		}
		if g.Aggregate == "" {
			g.Aggregate = AggregateSum
		}
		if !slices.Contains(strings.Split(aggregates, ", "), g.Aggregate) {
			return specError(ErrBadSubtasks, lines.at(key+".aggregate"), "%s.aggregate: %q is not one of %s", key, clip(g.Aggregate, 40), aggregates)
		}
		if g.Verdict == "" {
			g.Verdict = VerdictWorstError
		}
		if !slices.Contains(strings.Split(verdictModes, ", "), g.Verdict) {
			return specError(ErrBadSubtasks, lines.at(key+".verdict"), "%s.verdict: %q is not one of %s", key, clip(g.Verdict, 40), verdictModes)
		}
		if g.OnReject == "" {
			g.OnReject = OnRejectBreak
		}
		if g.OnReject != OnRejectBreak && g.OnReject != OnRejectContinue {
			return specError(ErrBadSubtasks, lines.at(key+".on_reject"), "%s.on_reject: %q is not break or continue", key, clip(g.OnReject, 40))
		}
		if err := checkGroupScores(g, key, lines); err != nil {
			return err
		}
		if g.Range != nil && (len(g.Range) != 2 || !(g.Range[0] <= g.Range[1])) {
			return specError(ErrBadSubtasks, lines.at(key+".range"), "%s.range: want two numbers, the lowest and highest score, such as [0, 100]", key)
		}
		if _, hi := g.Bounds(); g.Aggregate == AggregatePassFail && math.IsInf(hi, 1) {
			return specError(ErrBadSubtasks, lines.at(key+".range"), "%s.range: a pass_fail group scores the top of its range: give one, such as [0, 25]", key)
		}
		if g.Ignore && depth == 0 {
			return specError(ErrBadSubtasks, lines.at(key+".ignore"), "%s.ignore: the root has no parent to be left out of", key)
		}
		if len(g.Cases) == 0 && len(g.Groups) == 0 {
			return specError(ErrBadSubtasks, lines.at(key), "%s: a group needs cases or groups", key)
		}
		for j, c := range g.Cases {
			ck := fmt.Sprintf("%s.cases[%d]", key, j)
			if c < 1 || c > cases {
				return specError(ErrBadSubtasks, lines.at(ck), "%s: case %d does not exist (the tests are 1..%d)", ck, c, cases)
			}
			if owner[c] != "" {
				return specError(ErrBadSubtasks, lines.at(ck), "%s: case %d is already in %s; a case belongs to one group", ck, c, owner[c])
			}
			owner[c] = key
		}
		for _, it := range g.Items() {
			if it.Case > 0 {
				order = append(order, it.Case)
				continue
			}
			k := 0
			for k = range g.Groups {
				if &g.Groups[k] == it.Group {
					break
				}
			}
			if err := walk(it.Group, fmt.Sprintf("%s.groups[%d]", key, k), depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(s.Scoring, "scoring", 0); err != nil {
		return err
	}
	if err := checkMaxScores(s.Scoring, "scoring", lines); err != nil {
		return err
	}
	for c := 1; c <= cases; c++ {
		if owner[c] == "" {
			return specError(ErrBadSubtasks, at, "scoring: case %d belongs to no group; every case must be in one", c)
		}
	}
	for k, c := range order {
		if c != k+1 {
			return specError(ErrBadSubtasks, at, "scoring: groups are judged in case order, each at its first case, so case %d would be judged %s; number the cases in the order they are judged", c, ordinal(k+1))
		}
	}
	return nil
}

// checkGroupScores refuses a group's scores that oj could not keep: NaN, ±Inf, or past
// job.MaxScore (the YAML reads .inf, .nan and 1e308 as numbers).
func checkGroupScores(g *Group, key string, lines lineMap) error {
	vals := map[string]float64{"reject_score": g.RejectScore}
	if g.AcceptScore != nil {
		vals["accept_score"] = *g.AcceptScore
	}
	for i, x := range g.Range {
		vals[fmt.Sprintf("range[%d]", i)] = x
	}
	for _, k := range slices.Sorted(maps.Keys(vals)) {
		if !job.ScoreOK(vals[k]) {
			return specError(ErrBadSubtasks, lines.at(key+"."+k), "%s.%s: %v is not a finite number within ±%g (oj's bound on any score)",
				key, k, vals[k], job.MaxScore)
		}
	}
	return nil
}

// checkMaxScores refuses a tree whose groups could score past job.MaxScore when every
// case is accepted (a sum of many bounded scores): such a submission could only be SE.
func checkMaxScores(g *Group, key string, lines lineMap) error {
	if m := g.MaxScore(); !job.ScoreOK(m) {
		return specError(ErrBadSubtasks, lines.at(key), "%s: its cases accepted would score %v, past oj's bound of %g on any score",
			key, m, job.MaxScore)
	}
	for i := range g.Groups {
		if err := checkMaxScores(&g.Groups[i], fmt.Sprintf("%s.groups[%d]", key, i), lines); err != nil {
			return err
		}
	}
	return nil
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
