package tui

import (
	"context"

	"oj/core/wire"
)

// Problem is the problem's latest version: a derived limit, a group tree and language
// rules, for the problem view's detail pane.
func (f *fake) Problem(_ context.Context, id string) (*wire.Problem, error) {
	if err := f.fail("problem"); err != nil {
		return nil, err
	}
	a, tle, res, max := 2.0, 1.5, 1000, 100.0
	return &wire.Problem{ID: id, Title: id, TimeLimitMS: 1000, Version: 1,
		Languages: []string{"cpp17", "python3"}, TimeFactors: map[string]float64{"python3": 2},
		TimeLimitDerivation: &wire.TimeLimitDerivation{State: "derived", LimitMS: 1000, ACToTimeLimit: &a, TimeLimitToTLE: &tle,
			ResolutionMS: &res, VerificationID: 7, SlowestACMS: 62, SlowestACSource: "solutions/abs-problem-bfs.cpp"},
		Grading: wire.Grading{Mode: "groups", MaxScore: &max, Aggregate: "sum", Groups: []wire.ProblemGroup{
			{Name: "g1", Path: "g1", MaxScore: 50, Aggregate: "min", Cases: []int{1}, Groups: []wire.ProblemGroup{}},
			{Name: "g2", Path: "g2", MaxScore: 50, Aggregate: "min", Cases: []int{2}, Groups: []wire.ProblemGroup{}},
		}}}, nil
}
