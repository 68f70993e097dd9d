package kattis

import (
	"math"
	"strconv"
	"strings"

	"oj/core/job"
	"oj/core/judge/problem"
)

// A legacy or draft package's testdata.yaml: the group it makes, and the values oj
// refuses in it.

// legacyGroup makes the group of a legacy or draft testdata.yaml's settings.
func (c *converter) legacyGroup(name string, s settings) problem.Group {
	g := problem.Group{Name: name, Aggregate: problem.AggregateSum, Verdict: problem.VerdictWorstError, OnReject: problem.OnRejectBreak}
	if v := str(s["on_reject"]); v != "" {
		g.OnReject = v
	}
	for _, f := range strings.Fields(str(s["grader_flags"])) {
		switch f {
		case "sum", "avg", "min", "max":
			g.Aggregate = f
		case "first_error", "worst_error", "always_accept":
			g.Verdict = f
		case "accept_if_any_accepted":
			g.AcceptIfAnyAccepted = true
		}
	}
	if v, ok := num(s["accept_score"]); ok {
		g.AcceptScore = ptr(v)
	}
	if v, ok := num(s["reject_score"]); ok {
		g.RejectScore = v
	}
	if r := strings.Fields(str(s["range"])); len(r) == 2 {
		lo, e1 := parseInf(r[0])
		hi, e2 := parseInf(r[1])
		// A range with an infinite end bounds nothing oj checks on that side; oj's
		// range is two numbers, so only a finite one is kept.
		if e1 == nil && e2 == nil && !math.IsInf(lo, 0) && !math.IsInf(hi, 0) {
			g.Range = []float64{lo, hi}
		}
	}
	return g
}

func parseInf(s string) (float64, error) {
	switch s {
	case "inf", "+inf":
		return math.Inf(1), nil
	case "-inf":
		return math.Inf(-1), nil
	}
	return strconv.ParseFloat(s, 64)
}

// checkLegacySettings refuses testdata.yaml values oj cannot read.
func checkLegacySettings(name string, s settings) error {
	if v := str(s["on_reject"]); v != "" && v != "break" && v != "continue" {
		return bad(name, "on_reject: %q: want break or continue", v)
	}
	for _, f := range strings.Fields(str(s["grader_flags"])) {
		switch f {
		case "sum", "avg", "min", "max", "first_error", "worst_error", "always_accept", "accept_if_any_accepted", "ignore_sample":
		default:
			return bad(name, "grader_flags: unknown flag %q", f)
		}
	}
	if r := str(s["range"]); r != "" {
		p := strings.Fields(r)
		if len(p) != 2 {
			return bad(name, "range: want two numbers, such as \"0 100\"")
		}
		for _, x := range p {
			v, err := parseInf(x)
			if err != nil {
				return bad(name, "range: %q is not a number", x)
			}
			// An infinite end leaves that side unbounded (the format's default), which oj
			// bounds itself; any other end must be a score oj can keep.
			if !math.IsInf(v, 0) {
				if err := boundedScore(name, "range", v); err != nil {
					return err
				}
			}
		}
	}
	for _, k := range []string{"accept_score", "reject_score"} {
		if s[k] != nil {
			v, ok := num(s[k])
			if !ok {
				return bad(name, "%s: want a number", k)
			}
			if err := boundedScore(name, k, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// boundedScore refuses a score oj could not keep (NaN, ±Inf, past job.MaxScore), naming
// the file and the key that give it.
func boundedScore(name, key string, v float64) error {
	if job.ScoreOK(v) {
		return nil
	}
	return bad(name, "%s: %v is not a finite number within ±%g (oj's bound on any score)", key, v, job.MaxScore)
}
