package kattis

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"oj/core/judge/problem"
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
