// Package polygon reads a Polygon full package (problem.xml with its tests, checker,
// interactor, solutions and statements) and converts it into oj's own package. Every
// test's input and answer must be in the package: a package whose generated tests are
// missing (Polygon's "standard" package) is refused naming the first missing test.
// Test files with Windows line endings are converted to LF.
package polygon

import (
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"

	"oj/core/job"
	"oj/core/judge/problem"
)

type xmlFile struct {
	Path string `xml:"path,attr"`
	Type string `xml:"type,attr"`
}

// xmlStatement is a statement or a tutorial problem.xml lists.
type xmlStatement struct {
	Path     string `xml:"path,attr"`
	Type     string `xml:"type,attr"`
	Language string `xml:"language,attr"`
}

type xmlTestset struct {
	Name          string `xml:"name,attr"`
	TimeLimit     string `xml:"time-limit"`
	MemoryLimit   string `xml:"memory-limit"`
	TestCount     string `xml:"test-count"`
	InputPattern  string `xml:"input-path-pattern"`
	AnswerPattern string `xml:"answer-path-pattern"`
	Tests         []struct {
		Method string `xml:"method,attr"`
		Sample string `xml:"sample,attr"`
		Group  string `xml:"group,attr"`
		Points string `xml:"points,attr"`
		Cmd    string `xml:"cmd,attr"`
	} `xml:"tests>test"`
	Groups []struct {
		Name         string `xml:"name,attr"`
		PointsPolicy string `xml:"points-policy,attr"`
		Dependencies []struct {
			Group string `xml:"group,attr"`
		} `xml:"dependencies>dependency"`
	} `xml:"groups>group"`
}

type xmlProblem struct {
	XMLName   xml.Name `xml:"problem"`
	ShortName string   `xml:"short-name,attr"`
	Revision  string   `xml:"revision,attr"`
	Names     []struct {
		Language string `xml:"language,attr"`
		Value    string `xml:"value,attr"`
	} `xml:"names>name"`
	Statements []xmlStatement `xml:"statements>statement"`
	// Tutorials are the editorials: never public, whatever else references them.
	Tutorials []xmlStatement `xml:"tutorials>tutorial"`
	Judging   struct {
		InputFile  string       `xml:"input-file,attr"`
		OutputFile string       `xml:"output-file,attr"`
		RunCount   string       `xml:"run-count,attr"`
		Testsets   []xmlTestset `xml:"testset"`
	} `xml:"judging"`
	Files struct {
		Resources []xmlFile `xml:"resources>file"`
	} `xml:"files"`
	Assets struct {
		Checker *struct {
			Name   string  `xml:"name,attr"`
			Type   string  `xml:"type,attr"`
			Source xmlFile `xml:"source"`
		} `xml:"checker"`
		Interactor *struct {
			Source xmlFile `xml:"source"`
		} `xml:"interactor"`
		Solutions []struct {
			Tag    string  `xml:"tag,attr"`
			Source xmlFile `xml:"source"`
		} `xml:"solutions>solution"`
	} `xml:"assets"`
}

func refuse(name, format string, args ...any) error {
	return &problem.InvalidError{Reason: problem.ErrUnsupported, Name: name, Detail: fmt.Sprintf(format, args...)}
}

func bad(name, format string, args ...any) error {
	return &problem.InvalidError{Reason: problem.ErrBadYAML, Name: name, Detail: fmt.Sprintf(format, args...)}
}

// Is reports whether src is a Polygon package.
func Is(src *problem.Source) bool { return src.Has("problem.xml") }

type converter struct {
	src  *problem.Source
	b    *problem.Builder
	im   problem.Import
	x    xmlProblem
	ts   *xmlTestset
	spec problem.Spec
}

// Convert converts a Polygon full package.
func Convert(src *problem.Source) (*problem.Converted, error) {
	c := &converter{src: src, b: problem.NewBuilder(src.Limits()), im: problem.Import{Format: "polygon"}}
	raw, err := src.ReadFile("problem.xml", 4<<20)
	if err != nil {
		return nil, err
	}
	if err := xml.Unmarshal(raw, &c.x); err != nil {
		return nil, bad("problem.xml", "not valid XML: %v", err)
	}
	if c.x.Revision != "" {
		c.im.Version = "revision " + c.x.Revision
	}
	for _, step := range []func() error{c.header, c.tests, c.checker, c.solutions, c.statements, c.rest} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	if err := c.b.AddYAML("problem.yaml", c.spec); err != nil {
		return nil, err
	}
	zip, err := c.b.Bytes()
	if err != nil {
		return nil, err
	}
	return &problem.Converted{Zip: zip, Import: c.im}, nil
}

func (c *converter) header() error {
	for _, n := range c.x.Names {
		if n.Language == "english" {
			c.spec.Title = n.Value
		}
	}
	if c.spec.Title == "" && len(c.x.Names) > 0 {
		c.spec.Title = c.x.Names[0].Value
	}
	if c.spec.Title == "" {
		c.spec.Title = c.x.ShortName
	}
	if c.spec.Title == "" {
		return bad("problem.xml", "the problem has no name")
	}
	if len(c.spec.Title) > 200 {
		c.spec.Title = strings.ToValidUTF8(c.spec.Title[:200], "")
	}
	c.im.Map("names/name", "title")
	j := c.x.Judging
	if j.InputFile != "" || j.OutputFile != "" {
		return refuse("problem.xml", "judging through files (input-file %q, output-file %q): oj gives a submission standard input and output", j.InputFile, j.OutputFile)
	}
	if j.RunCount != "" && j.RunCount != "1" {
		c.im.Note("judging run-count %s: oj runs each test once", j.RunCount)
	}
	for i := range j.Testsets {
		if j.Testsets[i].Name == "tests" {
			c.ts = &j.Testsets[i]
		} else {
			c.im.Note("testset %q: oj judges the testset \"tests\" only", j.Testsets[i].Name)
		}
	}
	if c.ts == nil {
		return bad("problem.xml", "no testset named \"tests\"")
	}
	tl, err := strconv.Atoi(strings.TrimSpace(c.ts.TimeLimit))
	if err != nil || tl < 1 || tl > 60000 {
		return bad("problem.xml", "time-limit %q: want milliseconds, 1..60000", c.ts.TimeLimit)
	}
	c.spec.TimeLimitMS = tl
	c.im.Map("testset tests time-limit (ms)", fmt.Sprintf("time_limit_ms: %d", tl))
	mem, err := strconv.ParseInt(strings.TrimSpace(c.ts.MemoryLimit), 10, 64)
	if err != nil || mem < 1 {
		return bad("problem.xml", "memory-limit %q: want bytes", c.ts.MemoryLimit)
	}
	mb := int(math.Ceil(float64(mem) / (1 << 20)))
	if mb > 4096 {
		return refuse("problem.xml", "memory-limit %d MiB: oj allows at most 4096", mb)
	}
	c.spec.MemoryLimitMB = mb
	c.im.Map("testset tests memory-limit (bytes)", fmt.Sprintf("memory_limit_mb: %d", mb))
	return nil
}

// expand fills a Polygon path pattern ("tests/%02d") with n: one %d, %0Nd or %Nd.
func expand(pattern string, n int) (string, error) {
	i := strings.IndexByte(pattern, '%')
	if i < 0 || strings.Count(pattern, "%") != 1 {
		return "", fmt.Errorf("pattern %q: want one %%d", pattern)
	}
	j := i + 1
	zero := j < len(pattern) && pattern[j] == '0'
	if zero {
		j++
	}
	k := j
	for k < len(pattern) && pattern[k] >= '0' && pattern[k] <= '9' {
		k++
	}
	if k >= len(pattern) || pattern[k] != 'd' {
		return "", fmt.Errorf("pattern %q: want one %%d", pattern)
	}
	width := 0
	if k > j {
		w, err := strconv.Atoi(pattern[j:k])
		if err != nil || w > 20 {
			return "", fmt.Errorf("pattern %q: bad width", pattern)
		}
		width = w
	}
	num := strconv.Itoa(n)
	pad := " "
	if zero {
		pad = "0"
	}
	for len(num) < width {
		num = pad + num
	}
	return pattern[:i] + num + pattern[k+1:], nil
}

func (c *converter) tests() error {
	count, err := strconv.Atoi(strings.TrimSpace(c.ts.TestCount))
	if err != nil || count < 0 {
		return bad("problem.xml", "test-count %q: want a number", c.ts.TestCount)
	}
	if count != len(c.ts.Tests) {
		return bad("problem.xml", "test-count %d but %d tests listed", count, len(c.ts.Tests))
	}
	if count == 0 {
		return bad("problem.xml", "the testset has no tests")
	}
	if count > c.src.Limits().MaxCases {
		return &problem.InvalidError{Reason: problem.ErrBadTests, Name: "problem.xml",
			Detail: fmt.Sprintf("%d tests, more than %d (judge.package_limits.max_cases)", count, c.src.Limits().MaxCases)}
	}
	crlf := 0
	for i, t := range c.ts.Tests {
		n := i + 1
		in, err := expand(c.ts.InputPattern, n)
		if err != nil {
			return bad("problem.xml", "input-path-pattern: %v", err)
		}
		ans, err := expand(c.ts.AnswerPattern, n)
		if err != nil {
			return bad("problem.xml", "answer-path-pattern: %v", err)
		}
		for _, f := range []string{in, ans} {
			if !c.src.Has(f) {
				how := "a " + t.Method + " test"
				if t.Cmd != "" {
					how = fmt.Sprintf("generated by %q", t.Cmd)
				}
				return &problem.InvalidError{Reason: problem.ErrMissingFile, Name: f, Detail: fmt.Sprintf(
					"test %d (%s) is not in the package: export a full package from Polygon (Package → Full), which holds every generated test with its answer", n, how)}
			}
		}
		for from, to := range map[string]string{in: fmt.Sprintf("tests/%d.in", n), ans: fmt.Sprintf("tests/%d.out", n)} {
			conv, err := c.b.Copy(c.src, from, to, true)
			if err != nil {
				return err
			}
			if conv {
				crlf++
			}
		}
		if t.Sample == "true" {
			c.spec.Samples = append(c.spec.Samples, n)
		}
	}
	c.im.Map(fmt.Sprintf("%s, %s (1..%d)", c.ts.InputPattern, c.ts.AnswerPattern, count), fmt.Sprintf("tests/1.in, tests/1.out … tests/%d.in, tests/%d.out", count, count))
	if crlf > 0 {
		c.im.Note("%d test files had Windows line endings (CRLF): converted to LF", crlf)
	}
	if len(c.spec.Samples) > 0 {
		c.im.Map("tests with sample=\"true\"", fmt.Sprintf("samples: %v", c.spec.Samples))
	}
	return c.scoring()
}

// scoring maps points and groups; without them a submission stops at its first
// failed test, as Polygon's invocations and Codeforces judge.
func (c *converter) scoring() error {
	points, grouped := false, false
	for _, t := range c.ts.Tests {
		points = points || t.Points != ""
		grouped = grouped || t.Group != ""
	}
	if !points && !grouped {
		c.spec.StopOnFirstFailure = true
		c.im.Map("no points or groups", "stop_on_first_failure: true")
		return nil
	}
	policy := map[string]string{}
	for _, g := range c.ts.Groups {
		if len(g.Dependencies) > 0 {
			return refuse("problem.xml", "group %q depends on other groups: not supported", g.Name)
		}
		policy[g.Name] = g.PointsPolicy
	}
	root := &problem.Group{Aggregate: problem.AggregateSum, Verdict: problem.VerdictFirstError, OnReject: problem.OnRejectContinue}
	byGroup := map[string]*problem.Group{}
	var order []string
	for i, t := range c.ts.Tests {
		n := i + 1
		p := 0.0
		if t.Points != "" {
			v, err := strconv.ParseFloat(t.Points, 64)
			if err != nil || v < 0 {
				return bad("problem.xml", "test %d: points %q: want a number ≥ 0", n, t.Points)
			}
			if !job.ScoreOK(v) {
				return bad("problem.xml", "test %d: points %q: not a finite number within %g (oj's bound on any score)", n, t.Points, job.MaxScore)
			}
			p = v
		}
		one := problem.Group{Name: fmt.Sprintf("test %d", n), Cases: []int{n}, AcceptScore: &p, Aggregate: problem.AggregateSum,
			Verdict: problem.VerdictFirstError, OnReject: problem.OnRejectContinue}
		if t.Group == "" {
			root.Groups = append(root.Groups, one)
			continue
		}
		g, ok := byGroup[t.Group]
		if !ok {
			g = &problem.Group{Name: t.Group, Verdict: problem.VerdictFirstError}
			switch policy[t.Group] {
			case "complete-group":
				g.Aggregate, g.OnReject, g.Range = problem.AggregatePassFail, problem.OnRejectBreak, []float64{0, 0}
			default: // each-test
				g.Aggregate, g.OnReject = problem.AggregateSum, problem.OnRejectContinue
			}
			byGroup[t.Group] = g
			order = append(order, t.Group)
		}
		if g.Aggregate == problem.AggregatePassFail {
			g.Cases = append(g.Cases, n)
			g.Range[1] += p
		} else {
			g.Groups = append(g.Groups, one)
		}
	}
	for _, name := range order {
		root.Groups = append(root.Groups, *byGroup[name])
	}
	// Groups are judged at their first test: a package whose groups interleave is
	// refused by the spec's own check with the case that would be out of order.
	c.spec.Scoring = root
	c.im.Map("test points and groups", "scoring groups (complete-group: all or nothing; each-test: each test's points)")
	return nil
}
