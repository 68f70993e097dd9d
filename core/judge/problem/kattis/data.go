package kattis

import (
	"fmt"
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

// tests walks data/ in the format's order, numbers the cases, copies them and builds
// the scoring tree.
func (c *converter) tests() error {
	if !c.src.IsDir("data") {
		return bad("data", "the package has no data/ folder (its test cases)")
	}
	for _, f := range c.src.List("data") {
		switch path.Base(f) {
		case "testdata.yaml", "test_group.yaml":
		default:
			// Generator scripts (gen.sh, gen_*.py) and the like: problemtools reads
			// only the test folders, and so does oj.
			if !strings.HasPrefix(path.Base(f), ".") {
				c.im.Note("%s: not a test folder, ignored (data/ is read for sample/ and secret/)", f)
			}
		}
	}
	for _, d := range c.src.Dirs("data") {
		switch path.Base(d) {
		case "sample", "secret":
		case "invalid_input", "invalid_output", "valid_output", "invalid_inputs", "invalid_outputs", "valid_outputs":
			c.im.Note("%s/: test cases for the validators, not judged", d)
		default:
			if strings.HasPrefix(path.Base(d), ".") {
				continue
			}
			if in := c.firstInput(d); in != "" {
				// Test cases outside sample/ and secret/: whether they are judged is
				// unclear, so they are not silently dropped.
				return bad(in, "a test case outside data/sample and data/secret: the test data holds the groups sample and secret only")
			}
			c.im.Note("%s/: holds no test case (.in), ignored", d)
		}
	}
	if !c.src.IsDir("data/secret") {
		return bad("data/secret", "the package has no secret test data")
	}
	rootSet, err := c.readSettings("data", settings{})
	if err != nil {
		return err
	}
	var root problem.Group
	if c.version != V2025 {
		root = c.legacyGroup("", rootSet)
	} else {
		root = problem.Group{Aggregate: problem.AggregateSum, Verdict: problem.VerdictFirstError, OnReject: problem.OnRejectContinue}
	}
	flags := map[string][]string{} // effective validator flags → where first seen
	for _, sub := range []string{"sample", "secret"} {
		dir := "data/" + sub
		if !c.src.IsDir(dir) {
			continue
		}
		g, err := c.walk(dir, rootSet, 0, flags)
		if err != nil {
			return err
		}
		if sub == "sample" {
			for n := range collectCases(g) {
				c.samples = append(c.samples, n)
			}
		}
		if c.version == V2025 && sub == "sample" {
			g.Ignore, g.AcceptScore, g.Aggregate, g.OnReject, g.Verdict, g.Range = true, ptr(0), problem.AggregateSum, problem.OnRejectContinue, problem.VerdictFirstError, nil
		}
		if len(g.Cases)+len(g.Groups) > 0 {
			root.Groups = append(root.Groups, *g)
		}
	}
	if c.cases == 0 {
		return bad("data/secret", "the package has no test cases (.in files)")
	}
	if c.version != V2025 && slices.Contains(strings.Fields(str(rootSet["grader_flags"])), "ignore_sample") {
		for i := range root.Groups {
			if root.Groups[i].Name == "sample" {
				root.Groups[i].Ignore = true
			}
		}
	}
	slices.Sort(c.samples)
	c.spec.Samples = c.samples
	if len(flags) > 1 {
		var where []string
		for f, w := range flags {
			where = append(where, fmt.Sprintf("%q in %s", f, strings.Join(w, ", ")))
		}
		slices.Sort(where)
		return refuse(where[0][strings.LastIndex(where[0], " in ")+4:], "validator flags that differ between test groups (%s): oj passes one set of flags to the validator", strings.Join(where, "; "))
	}
	for f := range flags {
		if f != "" {
			c.flags = strings.Fields(f)
		}
	}
	if c.has("scoring") {
		c.spec.Scoring = &root
		c.im.Map("test data groups (testdata.yaml / test_group.yaml)", "scoring groups")
	} else {
		// Pass-fail: every case must be accepted; judging stops at the first that is not.
		c.spec.StopOnFirstFailure = true
		c.im.Map("pass-fail", "stop_on_first_failure: true")
	}
	return nil
}

func ptr(x float64) *float64 { return &x }

func collectCases(g *problem.Group) map[int]bool {
	out := map[int]bool{}
	for _, n := range g.Cases {
		out[n] = true
	}
	for i := range g.Groups {
		for n := range collectCases(&g.Groups[i]) {
			out[n] = true
		}
	}
	return out
}

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

// walk reads one group folder: its cases and subgroups in lexicographic order.
func (c *converter) walk(dir string, parent settings, depth int, flags map[string][]string) (*problem.Group, error) {
	if depth > 8 {
		return nil, bad(dir, "test groups nest more than 8 deep")
	}
	s, err := c.readSettings(dir, parent)
	if err != nil {
		return nil, err
	}
	settingsFile := dir + "/testdata.yaml"
	if c.version == V2025 {
		settingsFile = dir + "/test_group.yaml"
	}
	if c.version != V2025 {
		if err := checkLegacySettings(settingsFile, s); err != nil {
			return nil, err
		}
	}
	var g problem.Group
	if c.version != V2025 {
		g = c.legacyGroup(path.Base(dir), s)
	} else if g, err = c.group2025(dir, s); err != nil {
		return nil, err
	}
	type item struct {
		base string
		dir  bool
	}
	var items []item
	seen := map[string]bool{}
	for _, f := range c.src.List(dir) {
		base := path.Base(f)
		if strings.HasPrefix(base, ".") || strings.HasPrefix(base, "-") {
			continue // 2025-09: the judge behaves as if these did not exist
		}
		switch {
		case strings.HasSuffix(base, ".in"):
			items = append(items, item{base: strings.TrimSuffix(base, ".in")})
			seen[strings.TrimSuffix(base, ".in")] = true
		}
	}
	for _, f := range c.src.List(dir) {
		base := path.Base(f)
		if strings.HasPrefix(base, ".") || strings.HasPrefix(base, "-") || base == "testdata.yaml" || base == "test_group.yaml" {
			continue
		}
		stem, ext := splitExt(base)
		switch ext {
		case ".in":
		case ".ans":
			if !seen[stem] {
				return nil, bad(f, "an answer without its input %s.in", stem)
			}
		case ".interaction":
			if !strings.HasPrefix(dir, "data/sample") {
				c.im.Note("%s: an interaction log outside the samples, kept unused", f)
				continue
			}
			to := "statement/samples/" + base
			if _, err := c.b.Copy(c.src, f, to, false); err != nil {
				return nil, err
			}
			c.im.Map(f, to)
		case ".desc", ".hint", ".png", ".jpg", ".jpeg", ".svg":
			c.im.Note("%s: a test case's annotation, kept unused", f)
		case ".yaml":
			if err := c.caseYAML(f); err != nil {
				return nil, err
			}
		case ".out", ".in.statement", ".ans.statement", ".in.download", ".ans.download":
			c.im.Note("%s: what the statement shows or offers for download; oj serves the case's .in and .ans", f)
		default:
			c.im.Note("%s: not a test file, kept unused", f)
		}
	}
	for _, d := range c.src.Dirs(dir) {
		base := path.Base(d)
		if strings.HasPrefix(base, ".") || strings.HasPrefix(base, "-") {
			continue
		}
		if strings.HasSuffix(base, ".files") {
			return nil, refuse(d, "input files for the submission (.files): oj gives a submission its standard input only")
		}
		if c.version == V2025 && depth >= 1 {
			// 2025-09: groups do not nest; their folders are only a way to store files.
			return nil, refuse(d, "a folder inside a test data group: oj reads the 2025-09 groups as one level under secret")
		}
		if seen[base] {
			return nil, bad(d, "a folder with the name of a test case of the same folder")
		}
		items = append(items, item{base: base, dir: true})
	}
	slices.SortFunc(items, func(a, b item) int { return strings.Compare(a.base, b.base) })
	for _, it := range items {
		if it.dir {
			sub, err := c.walk(dir+"/"+it.base, s, depth+1, flags)
			if err != nil {
				return nil, err
			}
			if len(sub.Cases)+len(sub.Groups) > 0 {
				g.Groups = append(g.Groups, *sub)
			}
			continue
		}
		in, ans := dir+"/"+it.base+".in", dir+"/"+it.base+".ans"
		if !c.src.Has(ans) {
			return nil, bad(in, "the test case has no answer file %s", path.Base(ans))
		}
		c.cases++
		n := c.cases
		if n > c.src.Limits().MaxCases {
			return nil, &problem.InvalidError{Reason: problem.ErrBadTests, Name: in, Detail: fmt.Sprintf("more than %d cases (judge.package_limits.max_cases)", c.src.Limits().MaxCases)}
		}
		via := ""
		for from, to := range map[string]string{in: fmt.Sprintf("tests/%d.in", n), ans: fmt.Sprintf("tests/%d.out", n)} {
			if t := c.src.LinkStub(from); t != "" {
				// git's form of a symlink, checked out without symlinks: a file holding
				// the link's target. Read as the link it stands for.
				c.im.Note("%s holds the path %s: read as a link to it (how git checks out a symlink without symlinks)", from, t)
				from = t
			}
			if _, err := c.b.Copy(c.src, from, to, false); err != nil {
				return nil, err
			}
		}
		if t := c.src.LinkTarget(in); t != "" {
			via = " (a link to " + t + ")"
		}
		c.im.Map(in+via, fmt.Sprintf("tests/%d.in, tests/%d.out", n, n))
		g.Cases = append(g.Cases, n)
		f := c.validatorFlags(s)
		if len(flags[f]) < 3 && !slices.Contains(flags[f], settingsFile) {
			flags[f] = append(flags[f], settingsFile)
		}
	}
	if c.version == V2025 && len(g.Groups) > 0 && len(g.Cases) > 0 && dir == "data/secret" {
		return nil, bad(dir, "data/secret holds test cases or test groups, not both")
	}
	if c.version == V2025 {
		c.finish2025(&g, s, dir)
	}
	return &g, nil
}

// splitExt splits the test-file extensions Kattis uses (.in.statement and the like).
func splitExt(base string) (string, string) {
	for _, e := range []string{".in.statement", ".ans.statement", ".in.download", ".ans.download"} {
		if strings.HasSuffix(base, e) {
			return strings.TrimSuffix(base, e), e
		}
	}
	e := path.Ext(base)
	return strings.TrimSuffix(base, e), e
}

// caseYAML checks a test case's .yaml (2025-09): arguments for the submission or its
// own validator arguments are refused.
func (c *converter) caseYAML(name string) error {
	b, err := c.src.ReadFile(name, 1<<20)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return bad(name, "not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	for k, v := range m {
		switch k {
		case "args":
			if !isEmptyList(v) {
				return refuse(name, "args (command-line arguments for the submission): not supported")
			}
		case "output_validator_args":
			if !isEmptyList(v) {
				return refuse(name, "validator arguments of one test case: oj passes one set of arguments to the validator")
			}
		case "hint", "description", "full_feedback", "input_validator_args", "input_visualizer_args", "output_visualizer_args":
		default:
			return bad(name, "unknown key %q", k)
		}
	}
	c.im.Note("%s: the test case's description and hints, kept unused", name)
	return nil
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

// firstInput returns the first test input (.in) under dir, "" for none.
func (c *converter) firstInput(dir string) string {
	var all []string
	walkFiles(c.src, dir, &all)
	for _, f := range all {
		if strings.HasSuffix(f, ".in") {
			return f
		}
	}
	return ""
}
