package kattis

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"oj/core/judge/problem"
)

// C and C++ extensions of the Kattis languages table, and the one oj compiles each as.
var sourceExt = map[string]string{".c": ".c", ".cc": ".cc", ".cpp": ".cpp", ".cxx": ".cpp", ".c++": ".cpp", ".C": ".cpp", ".py": ".py"}

// validator maps the default validator's flags, or the custom output validator.
func (c *converter) validator() error {
	prog, err := c.findValidator()
	if err != nil {
		return err
	}
	if prog == "" {
		if c.has("interactive") {
			return bad("output_validator", "an interactive problem needs its output validator (the interactor), and the package has none")
		}
		return c.defaultValidator()
	}
	// One program: a file, or a folder of one source and its headers.
	files := []string{prog}
	if c.src.IsDir(prog) {
		files = c.src.List(prog)
		if len(c.src.Dirs(prog)) > 0 {
			return refuse(c.src.Dirs(prog)[0], "a folder inside the output validator: oj builds a validator of one source file and its headers")
		}
	}
	var source string
	var headers []string
	for _, f := range files {
		base := path.Base(f)
		ext := path.Ext(base)
		switch {
		case base == "build" || base == "run":
			return refuse(f, "build and run scripts: oj builds C, C++ and Python 3 validators itself")
		case ext == ".h" || ext == ".hpp" || ext == ".hh":
			headers = append(headers, f)
		case sourceExt[ext] != "":
			if source != "" {
				return refuse(f, "a validator of several source files (%s and %s): oj builds one source file with its headers", path.Base(source), base)
			}
			source = f
		case strings.HasPrefix(base, "."), strings.EqualFold(base, "README"), strings.EqualFold(base, "README.md"), strings.EqualFold(base, "README.txt"):
		default:
			return refuse(f, "a validator file oj cannot build (%s): oj builds C, C++ and Python 3 validators", base)
		}
	}
	if source == "" {
		return bad(prog, "the output validator holds no C, C++ or Python source")
	}
	base := path.Base(source)
	to := "validator/" + strings.TrimSuffix(base, path.Ext(base)) + sourceExt[path.Ext(base)]
	if _, err := c.b.Copy(c.src, source, to, false); err != nil {
		return err
	}
	c.im.Map(source, to+" (checker type kattis)")
	for _, h := range headers {
		if _, err := c.b.Copy(c.src, h, "validator/"+path.Base(h), false); err != nil {
			return err
		}
		c.im.Map(h, "validator/"+path.Base(h))
	}
	c.spec.Checker = problem.CheckerSpec{Type: problem.CheckerKattis, Source: to, Args: c.flags}
	if len(c.flags) > 0 {
		c.im.Map("validator flags", "checker.args: "+strings.Join(c.flags, " "))
	}
	return nil
}

// findValidator returns the output validator program (a file or folder), "" for none.
func (c *converter) findValidator() (string, error) {
	var progs []string
	for _, dir := range []string{"output_validators", "output_validator"} {
		if !c.src.IsDir(dir) {
			continue
		}
		if c.version == V2025 && dir == "output_validators" {
			return "", bad(dir, "the 2025-09 format keeps its validator in output_validator/")
		}
		if dir == "output_validator" && c.version != Legacy {
			// The folder is the program, unless it holds one folder only (the draft's
			// output_validator/NAME/).
			if len(c.src.List(dir)) == 0 && len(c.src.Dirs(dir)) == 1 {
				progs = append(progs, c.src.Dirs(dir)[0])
			} else {
				progs = append(progs, dir)
			}
			continue
		}
		for _, f := range c.src.List(dir) {
			if !strings.HasPrefix(path.Base(f), ".") {
				progs = append(progs, f)
			}
		}
		progs = append(progs, c.src.Dirs(dir)...)
	}
	custom := c.has("custom") || c.version != Legacy && len(progs) > 0
	switch {
	case len(progs) > 1:
		return "", refuse(progs[1], "several output validators (%s): oj runs one", strings.Join(progs, ", "))
	case custom && len(progs) == 0:
		return "", refuse("problem.yaml", "validation: custom, but the package has no output validator (output_validators/)")
	case !custom && len(progs) == 1:
		return "", refuse(progs[0], "an output validator, but validation is default: say validation: custom to use it")
	}
	if len(progs) == 0 {
		return "", nil
	}
	c.im.Map("validation: custom", "checker type kattis")
	return progs[0], nil
}

// defaultValidator maps the default validator's flags onto oj's tokens or float checker.
func (c *converter) defaultValidator() error {
	ch := problem.CheckerSpec{Type: problem.CheckerTokens}
	sensitive := false
	for i := 0; i < len(c.flags); i++ {
		f := c.flags[i]
		tol := func() (*float64, error) {
			if i+1 == len(c.flags) {
				return nil, bad("problem.yaml", "validator flag %s needs a number", f)
			}
			i++
			v, err := strconv.ParseFloat(c.flags[i], 64)
			if err != nil || v < 0 || v >= 1e9 {
				return nil, bad("problem.yaml", "validator flag %s %q: want a number in [0, 1e9)", f, c.flags[i])
			}
			return &v, nil
		}
		var err error
		switch f {
		case "case_sensitive":
			sensitive = true
		case "space_change_sensitive":
			ch.SpaceChangeSensitive = true
		case "float_absolute_tolerance":
			ch.AbsoluteTolerance, err = tol()
		case "float_relative_tolerance":
			ch.RelativeTolerance, err = tol()
		case "float_tolerance":
			var v *float64
			if v, err = tol(); err == nil {
				ch.AbsoluteTolerance, ch.RelativeTolerance = v, v
			}
		default:
			return refuse("problem.yaml", "default validator flag %q: oj knows case_sensitive, space_change_sensitive, float_absolute_tolerance, float_relative_tolerance and float_tolerance", f)
		}
		if err != nil {
			return err
		}
	}
	if ch.AbsoluteTolerance != nil || ch.RelativeTolerance != nil {
		ch.Type = problem.CheckerFloat
	}
	if !sensitive {
		ch.CaseSensitive = new(bool)
	}
	c.spec.Checker = ch
	desc := []string{"checker " + ch.Type}
	if !sensitive {
		desc = append(desc, "case_sensitive: false")
	}
	if ch.SpaceChangeSensitive {
		desc = append(desc, "space_change_sensitive: true")
	}
	if ch.AbsoluteTolerance != nil {
		desc = append(desc, fmt.Sprintf("absolute_tolerance: %g", *ch.AbsoluteTolerance))
	}
	if ch.RelativeTolerance != nil {
		desc = append(desc, fmt.Sprintf("relative_tolerance: %g", *ch.RelativeTolerance))
	}
	from := "the default validator"
	if len(c.flags) > 0 {
		from += " with " + strings.Join(c.flags, " ")
	}
	c.im.Map(from, strings.Join(desc, ", "))
	return nil
}

// submission directories and what they expect (oj verdicts), by the format's rules.
var expectations = map[string][]string{
	"accepted":            {"AC"},
	"partially_accepted":  {"PC"},
	"wrong_answer":        {"WA"},
	"time_limit_exceeded": {"TLE"},
	// Kattis counts a memory limit as a run-time error.
	"run_time_error": {"RE", "MLE"},
	"slow_accepted":  {"AC", "TLE"},
	"rejected":       {"WA", "PE", "TLE", "MLE", "OLE", "RE"},
	"brute_force":    {"RE", "MLE", "TLE"},
}

// expectedResults reads DOMjudge's @EXPECTED_RESULTS@ line, which overrides the folder.
func expectedResults(src []byte) []string {
	s := string(src)
	i := strings.Index(s, "@EXPECTED_RESULTS@:")
	if i < 0 {
		return nil
	}
	line, _, _ := strings.Cut(s[i+len("@EXPECTED_RESULTS@:"):], "\n")
	var out []string
	for _, r := range strings.Split(line, ",") {
		r = strings.ToUpper(strings.TrimSpace(strings.Trim(strings.TrimSpace(r), "*/#")))
		var v string
		switch strings.ReplaceAll(r, "_", "-") {
		case "CORRECT", "ACCEPTED":
			v = "AC"
		case "WRONG-ANSWER", "NO-OUTPUT":
			v = "WA"
		case "TIMELIMIT", "TIME-LIMIT-EXCEEDED":
			v = "TLE"
		case "RUN-ERROR", "RUN-TIME-ERROR":
			v = "RE"
		case "MEMORY-LIMIT":
			v = "MLE"
		case "OUTPUT-LIMIT":
			v = "OLE"
		case "COMPILER-ERROR":
			v = "CE"
		}
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// submissions lists the labeled submissions and copies them.
func (c *converter) submissions() error {
	if !c.src.IsDir("submissions") {
		c.im.Note("no submissions/: nothing to verify")
		return nil
	}
	for _, f := range c.src.List("submissions") {
		c.im.Note("%s: expectations are taken from the folder names (and @EXPECTED_RESULTS@ lines), not from this file", f)
	}
	for _, d := range c.src.Dirs("submissions") {
		label := path.Base(d)
		expect, ok := expectations[label]
		if !ok {
			c.im.Note("%s/: no expectation oj knows for this folder: its submissions are not verified", d)
			continue
		}
		if label == "partially_accepted" && !c.has("scoring") {
			return bad(d, "partially_accepted submissions belong to scoring problems")
		}
		for _, f := range c.src.List(d) {
			if strings.HasPrefix(path.Base(f), ".") {
				continue
			}
			if len(c.spec.Submissions) >= 200 {
				c.im.Note("%s: more than 200 submissions; the rest are not verified", d)
				break
			}
			from := f
			if t := c.src.LinkStub(f); t != "" {
				// git's form of a symlink (DOMjudge links one submission to another):
				// judged as the file it names.
				c.im.Note("%s holds the path %s: read as a link to it (how git checks out a symlink without symlinks)", f, t)
				from = t
			}
			var head []byte
			if c.src.Size(from) <= 1<<20 {
				var err error
				if head, err = c.src.ReadFile(from, 1<<20); err != nil {
					return err
				}
			}
			lang, why := languageOf(f, head)
			sub := problem.LabeledSubmission{Source: f, Language: lang, Expect: expect, Label: label, Note: why}
			if e := expectedResults(head); len(e) > 0 {
				sub.Expect = e
				sub.Label += " (@EXPECTED_RESULTS@)"
			}
			if label == "slow_accepted" {
				sub.TimeLimit = new(bool)
			}
			if _, err := c.b.Copy(c.src, from, f, false); err != nil {
				return err
			}
			c.spec.Submissions = append(c.spec.Submissions, sub)
		}
		for _, sd := range c.src.Dirs(d) {
			// A folder is one submission of several files.
			var files []string
			var walk func(string)
			walk = func(dir string) {
				files = append(files, c.src.List(dir)...)
				for _, x := range c.src.Dirs(dir) {
					walk(x)
				}
			}
			walk(sd)
			if len(files) == 0 {
				continue
			}
			for _, f := range files {
				if _, err := c.b.Copy(c.src, f, f, false); err != nil {
					return err
				}
			}
			c.spec.Submissions = append(c.spec.Submissions, problem.LabeledSubmission{Source: files[0], Expect: expect, Label: label,
				Note: fmt.Sprintf("a submission of %d files (%s/): oj judges one source file", len(files), path.Base(sd))})
		}
	}
	if len(c.spec.Submissions) > 0 {
		c.im.Map("submissions/", fmt.Sprintf("submissions: %d labeled", len(c.spec.Submissions)))
	}
	return nil
}
