package problem

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
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
	Subtasks      []Subtask   `yaml:"subtasks"`
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
)

// parseSpec decodes problem.yaml and checks it against the package's files: cases is
// the number of tests, has reports whether a file exists.
func parseSpec(b []byte, cases int, has func(string) bool) (Spec, error) {
	var s Spec
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return s, invalid(ErrBadYAML, "problem.yaml", "empty")
		}
		return s, invalid(ErrBadYAML, "problem.yaml", "%v", err)
	}
	if s.Title == "" || len(s.Title) > maxTitle {
		return s, invalid(ErrBadYAML, "problem.yaml", "title: must be 1..%d characters", maxTitle)
	}
	if s.TimeLimitMS == 0 {
		s.TimeLimitMS = defaultTimeMS
	}
	if s.MemoryLimitMB == 0 {
		s.MemoryLimitMB = defaultMemoryMB
	}
	if s.TimeLimitMS < 1 || s.TimeLimitMS > maxTimeLimitMS {
		return s, invalid(ErrBadLimits, "problem.yaml", "time_limit_ms: %d not in 1..%d", s.TimeLimitMS, maxTimeLimitMS)
	}
	if s.MemoryLimitMB < 1 || s.MemoryLimitMB > maxMemoryLimitMB {
		return s, invalid(ErrBadLimits, "problem.yaml", "memory_limit_mb: %d not in 1..%d", s.MemoryLimitMB, maxMemoryLimitMB)
	}
	if err := s.checkChecker(has); err != nil {
		return s, err
	}
	if s.Interactor != "" {
		if err := checkSource(s.Interactor, has); err != nil {
			return s, invalid(ErrBadInteractor, "problem.yaml", "interactor: %v", err)
		}
	}
	return s, s.checkSubtasks(cases)
}

func (s *Spec) checkChecker(has func(string) bool) error {
	c := &s.Checker
	if c.Type == "" {
		c.Type = CheckerLines
	}
	switch c.Type {
	case CheckerLines, CheckerExact, CheckerTokens:
		if c.Epsilon != 0 || c.Source != "" {
			return invalid(ErrBadChecker, "problem.yaml", "checker %s takes no epsilon or source", c.Type)
		}
	case CheckerFloat:
		if c.Epsilon == 0 {
			c.Epsilon = DefaultEpsilon
		}
		if !(c.Epsilon > 0 && c.Epsilon < 1) {
			return invalid(ErrBadChecker, "problem.yaml", "checker epsilon: %v not in (0, 1)", c.Epsilon)
		}
		if c.Source != "" {
			return invalid(ErrBadChecker, "problem.yaml", "checker float takes no source")
		}
	case CheckerTestlib:
		if err := checkSource(c.Source, has); err != nil {
			return invalid(ErrBadChecker, "problem.yaml", "checker source: %v", err)
		}
	default:
		return invalid(ErrBadChecker, "problem.yaml", "checker type %q (want lines, exact, tokens, float or testlib)", c.Type)
	}
	return nil
}

// checkSource accepts a C or C++ source at the package's top level.
func checkSource(name string, has func(string) bool) error {
	if name == "" {
		return errors.New("empty")
	}
	if strings.Contains(name, "/") || strings.HasPrefix(name, ".") {
		return fmt.Errorf("%q must be a file at the package's top level", name)
	}
	switch path.Ext(name) {
	case ".c", ".cpp", ".cc":
	default:
		return fmt.Errorf("%q: want a .c, .cc or .cpp source", name)
	}
	if !has(name) {
		return fmt.Errorf("%q not in the package", name)
	}
	return nil
}

func (s *Spec) checkSubtasks(cases int) error {
	if len(s.Subtasks) == 0 {
		return nil
	}
	owner := make([]int, cases+1)
	for i, st := range s.Subtasks {
		if !(st.Score > 0) || st.Score > 1e6 {
			return invalid(ErrBadSubtasks, "problem.yaml", "subtasks[%d].score: %v must be > 0", i, st.Score)
		}
		if len(st.Cases) == 0 {
			return invalid(ErrBadSubtasks, "problem.yaml", "subtasks[%d].cases: empty", i)
		}
		for _, c := range st.Cases {
			if c < 1 || c > cases {
				return invalid(ErrBadSubtasks, "problem.yaml", "subtasks[%d]: case %d does not exist (tests 1..%d)", i, c, cases)
			}
			if owner[c] != 0 {
				return invalid(ErrBadSubtasks, "problem.yaml", "case %d is in subtasks %d and %d", c, owner[c]-1, i)
			}
			owner[c] = i + 1
		}
	}
	for c := 1; c <= cases; c++ {
		if owner[c] == 0 {
			return invalid(ErrBadSubtasks, "problem.yaml", "case %d belongs to no subtask", c)
		}
	}
	return nil
}

// TimeLimit is the problem's CPU time limit per case (before a language's factor).
func (s Spec) TimeLimit() time.Duration { return time.Duration(s.TimeLimitMS) * time.Millisecond }

// MemoryLimitBytes is the problem's memory limit per case (before a language's factor).
func (s Spec) MemoryLimitBytes() int64 { return int64(s.MemoryLimitMB) << 20 }
