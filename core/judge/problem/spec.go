package problem

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Checker types.
const (
	CheckerLines   = "lines"
	CheckerExact   = "exact"
	CheckerTokens  = "tokens"
	CheckerFloat   = "float"
	CheckerTestlib = "testlib"
)

// DefaultEpsilon is the float checker's tolerance when the package gives none.
const DefaultEpsilon = 1e-6

// Spec is problem.yaml.
type Spec struct {
	Title         string      `yaml:"title"`
	TimeLimitMS   int         `yaml:"time_limit_ms"`
	MemoryLimitMB int         `yaml:"memory_limit_mb"`
	Checker       CheckerSpec `yaml:"checker"`
	Interactor    string      `yaml:"interactor"`
	// StopOnFirstFailure judges ICPC style: once a case (in case order) is not AC, the
	// cases after it are not run and are reported as skipped.
	StopOnFirstFailure bool      `yaml:"stop_on_first_failure"`
	Subtasks           []Subtask `yaml:"subtasks"`
	// Samples are the cases whose input a contestant already has (the statement's
	// examples): a submission's owner sees what the solution wrote on them. Every other
	// case is hidden: its owner sees its verdict, time, memory and score, never anything
	// derived from its input or answer.
	Samples []int `yaml:"samples"`
	// PublicTests opts in to showing owners every case as a sample is shown: for
	// training sets whose tests are published anyway.
	PublicTests bool `yaml:"public_tests"`
}

// CheckerSpec is problem.yaml's checker.
type CheckerSpec struct {
	Type    string  `yaml:"type"`
	Epsilon float64 `yaml:"epsilon"`
	Source  string  `yaml:"source"`
}

// Subtask is one group of cases scored together.
type Subtask struct {
	Score float64 `yaml:"score"`
	Cases []int   `yaml:"cases"`
}

// Bounds a problem.yaml must respect.
const (
	maxTimeLimitMS   = 60_000
	maxMemoryLimitMB = 4096
	defaultTimeMS    = 1000
	defaultMemoryMB  = 256
	maxTitle         = 200
	maxSubtaskScore  = 1_000_000
)

// parseSpec decodes problem.yaml and checks it against the package's files: cases is
// the number of tests, has reports whether a file exists. Every mistake is an
// *InvalidError with the line it is on.
func parseSpec(b []byte, cases int, has func(string) bool) (Spec, error) {
	var s Spec
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return s, syntaxError(err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].ShortTag() == "!!null" {
		return s, specError(ErrBadYAML, 1, "the file is empty; it needs at least a title (title: A+B)")
	}
	lines := lineMap{}
	if err := checkSchema(doc.Content[0], &schema, "", lines); err != nil {
		return s, err
	}
	if err := doc.Content[0].Decode(&s); err != nil {
		// The schema admits only values that decode; this is a gap in it.
		return s, specError(ErrBadYAML, 1, "cannot be read: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if s.Title == "" || len(s.Title) > maxTitle {
		return s, specError(ErrBadYAML, lines.at("title"), "title: required, 1..%d characters (title: A+B)", maxTitle)
	}
	if s.TimeLimitMS == 0 {
		s.TimeLimitMS = defaultTimeMS
	}
	if s.MemoryLimitMB == 0 {
		s.MemoryLimitMB = defaultMemoryMB
	}
	if s.TimeLimitMS < 1 || s.TimeLimitMS > maxTimeLimitMS {
		return s, specError(ErrBadLimits, lines.at("time_limit_ms"), "time_limit_ms: %d is out of range 1..%d", s.TimeLimitMS, maxTimeLimitMS)
	}
	if s.MemoryLimitMB < 1 || s.MemoryLimitMB > maxMemoryLimitMB {
		return s, specError(ErrBadLimits, lines.at("memory_limit_mb"), "memory_limit_mb: %d is out of range 1..%d", s.MemoryLimitMB, maxMemoryLimitMB)
	}
	if err := s.checkChecker(has, lines); err != nil {
		return s, err
	}
	if s.Interactor != "" {
		if err := checkSource(s.Interactor, has); err != nil {
			return s, specError(ErrBadInteractor, lines.at("interactor"), "interactor: %v", err)
		}
	}
	if err := s.checkSamples(cases, lines); err != nil {
		return s, err
	}
	return s, s.checkSubtasks(cases, lines)
}

// checkSamples accepts existing case numbers, each once.
func (s *Spec) checkSamples(cases int, lines lineMap) error {
	seen := map[int]bool{}
	for i, c := range s.Samples {
		at := lines.at(fmt.Sprintf("samples[%d]", i))
		if c < 1 || c > cases {
			return specError(ErrBadSamples, at, "samples: case %d does not exist (the tests are 1..%d)", c, cases)
		}
		if seen[c] {
			return specError(ErrBadSamples, at, "samples: case %d is listed twice", c)
		}
		seen[c] = true
	}
	return nil
}

// IsSample reports whether case i is one of the samples.
func (s Spec) IsSample(i int) bool { return slices.Contains(s.Samples, i) }

// SubtaskOf returns the 1-based subtask that case i belongs to, 0 without subtasks:
// the number a case carries from its first report to the final result.
func (s Spec) SubtaskOf(i int) int {
	for si, st := range s.Subtasks {
		if slices.Contains(st.Cases, i) {
			return si + 1
		}
	}
	return 0
}

// syntaxError turns the YAML parser's error ("yaml: line 3: did not find expected key")
// into one that names the file and the line.
func syntaxError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, after, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				line, msg = n, after
			}
		}
	}
	return specError(ErrBadYAML, line, "not valid YAML: %s", msg)
}

func (s *Spec) checkChecker(has func(string) bool, lines lineMap) error {
	c := &s.Checker
	if c.Type == "" {
		c.Type = CheckerLines
	}
	switch c.Type {
	case CheckerLines, CheckerExact, CheckerTokens:
		if c.Epsilon != 0 {
			return specError(ErrBadChecker, lines.at("checker.epsilon"), "checker.epsilon: only the float checker takes one (this one is %s)", c.Type)
		}
		if c.Source != "" {
			return specError(ErrBadChecker, lines.at("checker.source"), "checker.source: only the testlib checker takes one (this one is %s)", c.Type)
		}
	case CheckerFloat:
		if c.Epsilon == 0 {
			c.Epsilon = DefaultEpsilon
		}
		if !(c.Epsilon > 0 && c.Epsilon < 1) {
			return specError(ErrBadChecker, lines.at("checker.epsilon"), "checker.epsilon: %v is out of range: want a number in (0, 1), such as 1e-6", c.Epsilon)
		}
		if c.Source != "" {
			return specError(ErrBadChecker, lines.at("checker.source"), "checker.source: only the testlib checker takes one (this one is float)")
		}
	case CheckerTestlib:
		if c.Epsilon != 0 {
			return specError(ErrBadChecker, lines.at("checker.epsilon"), "checker.epsilon: only the float checker takes one (a testlib checker decides itself)")
		}
		if err := checkSource(c.Source, has); err != nil {
			return specError(ErrBadChecker, lines.at("checker.source"), "checker.source: %v", err)
		}
	default:
		return specError(ErrBadChecker, lines.at("checker.type"), "checker.type: %q is not a checker; want one of %s", clip(c.Type, 40), checkerTypes)
	}
	return nil
}

// sourceName is what a checker's or interactor's source may be called: a plain file
// name that no compiler reads as anything else (an option starts with '-', a response
// file with '@') and that no shell or log line needs quoting for.
var sourceName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*$`)

// checkSource accepts a C or C++ source at the package's top level, under a plain name.
func checkSource(name string, has func(string) bool) error {
	if name == "" {
		return errors.New("empty")
	}
	if strings.Contains(name, "/") || strings.HasPrefix(name, ".") {
		return fmt.Errorf("%q must be a file at the package's top level", clip(name, 100))
	}
	switch path.Ext(name) {
	case ".c", ".cpp", ".cc":
	default:
		return fmt.Errorf("%q: want a .c, .cc or .cpp source", clip(name, 100))
	}
	if !sourceName.MatchString(name) {
		return fmt.Errorf("%q is not a plain file name: use letters, digits, '_', '.', '+' and '-', "+
			"starting with a letter, a digit or '_' (such as checker.cpp)", clip(name, 100))
	}
	if !has(name) {
		return fmt.Errorf("%q not in the package", clip(name, 100))
	}
	return nil
}

func (s *Spec) checkSubtasks(cases int, lines lineMap) error {
	if len(s.Subtasks) == 0 {
		return nil
	}
	owner := make([]int, cases+1)
	for i, st := range s.Subtasks {
		key := fmt.Sprintf("subtasks[%d]", i)
		if !(st.Score > 0) || st.Score > maxSubtaskScore {
			return specError(ErrBadSubtasks, lines.at(key+".score"), "%s.score: %v is out of range: want a number in (0, %d]", key, st.Score, maxSubtaskScore)
		}
		if len(st.Cases) == 0 {
			return specError(ErrBadSubtasks, lines.at(key), "%s.cases: required, a list of case numbers such as [1, 2]", key)
		}
		for j, c := range st.Cases {
			at := lines.at(fmt.Sprintf("%s.cases[%d]", key, j))
			if c < 1 || c > cases {
				return specError(ErrBadSubtasks, at, "%s.cases: case %d does not exist (the tests are 1..%d)", key, c, cases)
			}
			if owner[c] != 0 {
				return specError(ErrBadSubtasks, at, "%s.cases: case %d is already in subtasks[%d]; a case belongs to one subtask", key, c, owner[c]-1)
			}
			owner[c] = i + 1
		}
	}
	for c := 1; c <= cases; c++ {
		if owner[c] == 0 {
			return specError(ErrBadSubtasks, lines.at("subtasks"), "subtasks: case %d belongs to no subtask; every case must be in one", c)
		}
	}
	return nil
}

// TimeLimit is the problem's CPU time limit per case (before a language's factor).
func (s Spec) TimeLimit() time.Duration { return time.Duration(s.TimeLimitMS) * time.Millisecond }

// MemoryLimitBytes is the problem's memory limit per case (before a language's factor).
func (s Spec) MemoryLimitBytes() int64 { return int64(s.MemoryLimitMB) << 20 }
