package kattis

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"oj/core/judge/problem"
)

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
