package kattis

import (
	"math"
	"path"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"oj/core/judge/problem"
)

// settings are a test data group's testdata.yaml (legacy, draft) or test_group.yaml
// (2025-09), with what it inherits from its parent's.
type settings map[string]any

// legacyKeys are testdata.yaml's keys; v2025Keys test_group.yaml's.
var (
	legacyKeys = []string{"on_reject", "grading", "grader_flags", "input_validator_flags", "output_validator_flags",
		"accept_score", "reject_score", "range"}
	v2025Keys = []string{"max_score", "score_aggregation", "static_validation_score", "require_pass", "args",
		"input_validator_args", "static_validator_args", "output_validator_args", "input_visualizer_args",
		"output_visualizer_args", "full_feedback"}
	// inherited2025 are the test_group.yaml keys a group passes on.
	inherited2025 = []string{"args", "input_validator_args", "output_validator_args", "input_visualizer_args", "output_visualizer_args", "full_feedback"}
)

func ptr(x float64) *float64 { return &x }

// readSettings reads dir's group settings over parent's.
func (c *converter) readSettings(dir string, parent settings) (settings, error) {
	out := settings{}
	name, keys := dir+"/testdata.yaml", legacyKeys
	if c.version == V2025 {
		name, keys = dir+"/test_group.yaml", v2025Keys
		for _, k := range inherited2025 {
			if v, ok := parent[k]; ok {
				out[k] = v
			}
		}
	} else {
		for k, v := range parent {
			out[k] = v
		}
	}
	if c.version != V2025 && c.src.Has(dir+"/test_group.yaml") {
		return nil, bad(dir+"/test_group.yaml", "test_group.yaml belongs to the 2025-09 format; this package is %s (testdata.yaml)", c.version)
	}
	if !c.src.Has(name) {
		return out, nil
	}
	b, err := c.src.ReadFile(name, 1<<20)
	if err != nil {
		return nil, err
	}
	var own map[string]any
	if err := yaml.Unmarshal(b, &own); err != nil {
		return nil, bad(name, "not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	for k, v := range own {
		if !slices.Contains(keys, k) {
			return nil, bad(name, "unknown key %q (known: %s)", k, strings.Join(keys, ", "))
		}
		out[k] = v
	}
	// What oj cannot honour, refused naming the file.
	if str(own["grading"]) == "custom" {
		return nil, refuse(name, "grading: custom (a custom grader): oj grades groups with the default grader's modes only")
	}
	if rp, ok := own["require_pass"]; ok && rp != nil && str(rp) != "" && !(isEmptyList(rp)) {
		return nil, refuse(name, "require_pass (groups that depend on others): not supported")
	}
	if own["static_validation_score"] != nil || own["static_validator_args"] != nil {
		return nil, refuse(name, "static validation: oj has no static validator")
	}
	if a, ok := own["args"]; ok && !isEmptyList(a) {
		return nil, refuse(name, "args (command-line arguments for the submission): not supported")
	}
	if c.version == V2025 && str(own["max_score"]) == "unbounded" {
		return nil, refuse(name, "max_score: unbounded: oj scores within bounds")
	}
	if own["input_validator_flags"] != nil || own["input_validator_args"] != nil {
		c.im.Note("%s: input validator flags kept unused (oj does not run input validators)", name)
	}
	if v, ok := own["full_feedback"].(bool); ok && v && !strings.HasSuffix(dir, "sample") {
		c.im.Note("%s: full_feedback: owners see the output of sample cases only", name)
	}
	return out, nil
}

func isEmptyList(v any) bool {
	l, ok := v.([]any)
	return v == nil || ok && len(l) == 0
}

// validatorFlags returns a group's validator flags as one string.
func (c *converter) validatorFlags(s settings) string {
	var parts []string
	if c.version == V2025 {
		if l, ok := s["output_validator_args"].([]any); ok {
			for _, x := range l {
				parts = append(parts, str(x))
			}
		} else if v := str(s["output_validator_args"]); v != "" {
			parts = strings.Fields(v)
		}
	} else {
		parts = append(parts, c.flags...)
		switch v := s["output_validator_flags"].(type) {
		case string:
			parts = append(parts, strings.Fields(v)...)
		case map[string]any:
			parts = append(parts, strings.Fields(str(v["flags"]))...)
		}
	}
	return strings.Join(parts, " ")
}

// group2025 makes a 2025-09 group from its test_group.yaml.
func (c *converter) group2025(dir string, s settings) (problem.Group, error) {
	g := problem.Group{Name: path.Base(dir), Verdict: problem.VerdictFirstError}
	if dir == "data/sample" {
		return g, nil
	}
	agg := str(s["score_aggregation"])
	if agg == "" {
		agg = "pass-fail"
		if dir == "data/secret" {
			agg = "sum"
		}
	}
	switch agg {
	case "pass-fail":
		g.Aggregate = problem.AggregatePassFail
	case "sum", "min":
		g.Aggregate = agg
	default:
		return g, bad(dir+"/test_group.yaml", "score_aggregation: %q: want pass-fail, sum or min", agg)
	}
	max := 100.0
	if dir != "data/secret" {
		max = math.NaN()
	}
	if v, ok := num(s["max_score"]); ok {
		if err := boundedScore(dir+"/test_group.yaml", "max_score", v); err != nil {
			return g, err
		}
		max = v
	}
	if math.IsNaN(max) {
		if c.has("scoring") {
			return g, bad(dir+"/test_group.yaml", "max_score: required for a test group of a scoring problem whose secret is bounded")
		}
		max = 0
	}
	g.Range = []float64{0, max}
	return g, nil
}

// finish2025 sets a 2025-09 group's case scores once its cases are known: a sum
// group's cases share its maximum, a min group's each get it; pass-fail gives the
// maximum when all pass. A failure scores 0; groups that score 0 on any failure stop
// there.
func (c *converter) finish2025(g *problem.Group, s settings, dir string) {
	if dir == "data/sample" {
		return
	}
	max := g.Range[1]
	switch g.Aggregate {
	case problem.AggregateSum:
		g.OnReject = problem.OnRejectContinue
		if n := len(g.Cases); n > 0 {
			g.AcceptScore = ptr(max / float64(n))
		}
	case problem.AggregateMin:
		g.OnReject = problem.OnRejectBreak
		g.AcceptScore = ptr(max)
	case problem.AggregatePassFail:
		g.OnReject = problem.OnRejectBreak
	}
}
