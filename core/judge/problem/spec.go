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

	"oj/core/job"
)

// Checker types.
const (
	CheckerLines   = "lines"
	CheckerExact   = "exact"
	CheckerTokens  = "tokens"
	CheckerFloat   = "float"
	CheckerTestlib = "testlib"
	// CheckerKattis is an output validator speaking the Kattis protocol: run as
	// `validator input answer feedback_dir [args] < output`, exit 42 accepts, 43 rejects,
	// anything else is the validator's own failure.
	CheckerKattis = "kattis"
)

// DefaultEpsilon is the float checker's tolerance when the package gives none.
const DefaultEpsilon = 1e-6

// Spec is problem.yaml.
type Spec struct {
	Title         string `yaml:"title,omitempty"`
	TimeLimitMS   int    `yaml:"time_limit_ms,omitempty"`
	MemoryLimitMB int    `yaml:"memory_limit_mb,omitempty"`
	// OutputLimitMB bounds what one run may write, below the judge's own bound
	// (judge.output_limit_mb); 0: the judge's.
	OutputLimitMB int         `yaml:"output_limit_mb,omitempty"`
	Checker       CheckerSpec `yaml:"checker,omitempty"`
	Interactor    string      `yaml:"interactor,omitempty"`
	// StopOnFirstFailure judges ICPC style: once a case (in case order) is not AC, the
	// cases after it are not run and are reported as skipped.
	StopOnFirstFailure bool      `yaml:"stop_on_first_failure,omitempty"`
	Subtasks           []Subtask `yaml:"subtasks,omitempty"`
	// Samples are the cases whose input a contestant already has (the statement's
	// examples): a submission's owner sees what the solution wrote on them. Every other
	// case is hidden: its owner sees its verdict, time, memory and score, never anything
	// derived from its input or answer.
	Samples []int `yaml:"samples,omitempty"`
	// PublicTests opts in to showing owners every case as a sample is shown: for
	// training sets whose tests are published anyway.
	PublicTests bool `yaml:"public_tests,omitempty"`
	// Interactive runs the kattis checker as an interactor: its standard output is the
	// solution's standard input and the reverse.
	Interactive bool `yaml:"interactive,omitempty"`
	// Scoring is the root of a tree of test groups scored Kattis style (see Group);
	// nil: subtasks, or every case weighs the same.
	Scoring *Group `yaml:"scoring,omitempty"`
	// Timing says how the time limit relates to the package's labeled submissions.
	Timing *Timing `yaml:"timing,omitempty"`
	// Submissions are the package's labeled submissions, which verifying a version
	// judges (their sources are under submissions/).
	Submissions []LabeledSubmission `yaml:"submissions,omitempty"`
}

// CheckerSpec is problem.yaml's checker.
type CheckerSpec struct {
	Type    string  `yaml:"type,omitempty"`
	Epsilon float64 `yaml:"epsilon,omitempty"`
	Source  string  `yaml:"source,omitempty"`
	// CaseSensitive (tokens, float; default true): false takes ASCII letters as equal
	// up to case in tokens that are not compared as numbers.
	CaseSensitive *bool `yaml:"case_sensitive,omitempty"`
	// SpaceChangeSensitive (tokens, float): every run of whitespace must be the answer's.
	SpaceChangeSensitive bool `yaml:"space_change_sensitive,omitempty"`
	// AbsoluteTolerance and RelativeTolerance (float) replace epsilon when either is
	// given: a number within either tolerance is accepted.
	AbsoluteTolerance *float64 `yaml:"absolute_tolerance,omitempty"`
	RelativeTolerance *float64 `yaml:"relative_tolerance,omitempty"`
	// Args (kattis) are passed to the validator after its three arguments.
	Args []string `yaml:"args,omitempty"`
}

// Timing bounds the time limit by the labeled submissions' times, as the Kattis format
// does: limit ≥ the slowest accepted time × ACToTimeLimit, and every submission labeled
// TLE at least limit × TimeLimitToTLE. With Derive the package has no limit of its own:
// time_limit_ms is provisional until a verify derives the limit (the smallest multiple
// of ResolutionMS that satisfies the first bound).
type Timing struct {
	Derive         bool    `yaml:"derive,omitempty"`
	ACToTimeLimit  float64 `yaml:"ac_to_time_limit,omitempty"`
	TimeLimitToTLE float64 `yaml:"time_limit_to_tle,omitempty"`
	ResolutionMS   int     `yaml:"resolution_ms,omitempty"`
}

// LabeledSubmission is one of the package's own submissions: its source (under
// submissions/), its language (empty: oj cannot run it, and Note says why) and the
// verdicts it is expected to get (any one of them is as labeled).
type LabeledSubmission struct {
	Source   string   `yaml:"source,omitempty"`
	Language string   `yaml:"language,omitempty"`
	Expect   []string `yaml:"expect,omitempty"`
	// Label is the package's own name for what is expected (accepted, wrong_answer,
	// a Polygon tag), shown next to Expect.
	Label string `yaml:"label,omitempty"`
	// TimeLimit excludes the submission from deriving the time limit when false
	// (Kattis's slow_accepted).
	TimeLimit *bool  `yaml:"time_limit,omitempty"`
	Note      string `yaml:"note,omitempty"`
}

// IsCaseSensitive reports whether the tokens and float checkers compare case.
func (c CheckerSpec) IsCaseSensitive() bool { return c.CaseSensitive == nil || *c.CaseSensitive }

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
	if s.OutputLimitMB < 0 || s.OutputLimitMB > maxMemoryLimitMB {
		return s, specError(ErrBadLimits, lines.at("output_limit_mb"), "output_limit_mb: %d is out of range 1..%d", s.OutputLimitMB, maxMemoryLimitMB)
	}
	if err := s.checkChecker(has, lines); err != nil {
		return s, err
	}
	if s.Interactor != "" {
		if err := checkSource(s.Interactor, has, false); err != nil {
			return s, specError(ErrBadInteractor, lines.at("interactor"), "interactor: %v", err)
		}
		if c := s.Checker.Type; c == CheckerKattis {
			return s, specError(ErrBadInteractor, lines.at("interactor"), "interactor: a kattis checker is its own interactor: drop interactor and say interactive: true")
		}
	}
	if s.Interactive && s.Checker.Type != CheckerKattis {
		return s, specError(ErrBadInteractor, lines.at("interactive"), "interactive: true needs a kattis checker, which is the interactor (a testlib interactor is given with interactor: FILE)")
	}
	if err := s.checkSamples(cases, lines); err != nil {
		return s, err
	}
	if err := s.checkSubtasks(cases, lines); err != nil {
		return s, err
	}
	if err := s.checkScoring(cases, lines); err != nil {
		return s, err
	}
	if err := s.checkTiming(lines); err != nil {
		return s, err
	}
	return s, s.checkSubmissions(has, lines)
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
	only := func(key string, types ...string) error {
		for _, t := range types {
			if c.Type == t {
				return nil
			}
		}
		which := "the " + types[0] + " checker takes"
		if len(types) > 1 {
			which = "the " + strings.Join(types, " and ") + " checkers take"
		}
		return specError(ErrBadChecker, lines.at("checker."+key), "checker.%s: only %s one (this one is %s)", key, which, c.Type)
	}
	if c.Epsilon != 0 {
		if err := only("epsilon", CheckerFloat); err != nil {
			return err
		}
	}
	if c.Source != "" {
		if err := only("source", CheckerTestlib, CheckerKattis); err != nil {
			return err
		}
	}
	if c.CaseSensitive != nil {
		if err := only("case_sensitive", CheckerTokens, CheckerFloat); err != nil {
			return err
		}
	}
	if c.SpaceChangeSensitive {
		if err := only("space_change_sensitive", CheckerTokens, CheckerFloat); err != nil {
			return err
		}
	}
	for key, v := range map[string]*float64{"absolute_tolerance": c.AbsoluteTolerance, "relative_tolerance": c.RelativeTolerance} {
		if v == nil {
			continue
		}
		if err := only(key, CheckerFloat); err != nil {
			return err
		}
		if !(*v >= 0 && *v < 1e9) {
			return specError(ErrBadChecker, lines.at("checker."+key), "checker.%s: %v is out of range: want a number in [0, 1e9), such as 1e-6", key, *v)
		}
		if c.Epsilon != 0 {
			return specError(ErrBadChecker, lines.at("checker.epsilon"), "checker.epsilon: give epsilon (both tolerances) or absolute_tolerance/relative_tolerance, not both")
		}
	}
	if c.Args != nil {
		if err := only("args", CheckerKattis); err != nil {
			return err
		}
	}
	switch c.Type {
	case CheckerLines, CheckerExact, CheckerTokens:
	case CheckerFloat:
		if c.Epsilon == 0 && c.AbsoluteTolerance == nil && c.RelativeTolerance == nil {
			c.Epsilon = DefaultEpsilon
		}
		if c.Epsilon != 0 && !(c.Epsilon > 0 && c.Epsilon < 1) {
			return specError(ErrBadChecker, lines.at("checker.epsilon"), "checker.epsilon: %v is out of range: want a number in (0, 1), such as 1e-6", c.Epsilon)
		}
	case CheckerTestlib:
		if err := checkSource(c.Source, has, false); err != nil {
			return specError(ErrBadChecker, lines.at("checker.source"), "checker.source: %v", err)
		}
	case CheckerKattis:
		if err := checkSource(c.Source, has, true); err != nil {
			return specError(ErrBadChecker, lines.at("checker.source"), "checker.source: %v", err)
		}
		if len(c.Args) > maxValidatorArgs {
			return specError(ErrBadChecker, lines.at("checker.args"), "checker.args: %d arguments, at most %d", len(c.Args), maxValidatorArgs)
		}
		for i, a := range c.Args {
			if a == "" || len(a) > 1024 || strings.ContainsRune(a, 0) {
				return specError(ErrBadChecker, lines.at(fmt.Sprintf("checker.args[%d]", i)), "checker.args[%d]: want 1..1024 bytes without NUL", i)
			}
		}
	default:
		return specError(ErrBadChecker, lines.at("checker.type"), "checker.type: %q is not a checker; want one of %s", clip(c.Type, 40), checkerTypes)
	}
	return nil
}

// maxValidatorArgs bounds a kattis checker's arguments.
const maxValidatorArgs = 64

// Tolerances returns the float checker's absolute and relative tolerances: epsilon for
// both, or those given.
func (c CheckerSpec) Tolerances() (abs, rel float64) {
	if c.AbsoluteTolerance == nil && c.RelativeTolerance == nil {
		return c.Epsilon, c.Epsilon
	}
	if c.AbsoluteTolerance != nil {
		abs = *c.AbsoluteTolerance
	}
	if c.RelativeTolerance != nil {
		rel = *c.RelativeTolerance
	}
	return abs, rel
}

// sourceName is what a checker's, validator's or interactor's source, and a validator's
// folder, may be called: a plain name that no compiler reads as anything else (an option
// starts with '-', a response file with '@') and that no shell or log line needs quoting
// for.
var sourceName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*$`)

// checkSource accepts a C or C++ source (and, for a kattis validator, a Python 3 one)
// at the package's top level or, for a kattis validator, in one folder below it (a
// Kattis validator is a folder: its headers sit next to it).
func checkSource(name string, has func(string) bool, kattis bool) error {
	if name == "" {
		return errors.New("empty")
	}
	dir, base := path.Split(name)
	switch {
	case strings.HasPrefix(name, ".") || strings.HasPrefix(base, ".") || strings.Contains(strings.TrimSuffix(dir, "/"), "/"):
		return fmt.Errorf("%q must be a file at the package's top level%s", clip(name, 100), map[bool]string{true: " or in one folder", false: ""}[kattis])
	case dir != "" && !kattis:
		return fmt.Errorf("%q must be a file at the package's top level", clip(name, 100))
	case dir == "tests/" || dir == "submissions/" || dir == "statement/":
		return fmt.Errorf("%q: %s holds no tool sources", clip(name, 100), dir)
	}
	switch path.Ext(name) {
	case ".c", ".cpp", ".cc":
	case ".py":
		if !kattis {
			return fmt.Errorf("%q: want a .c, .cc or .cpp source", clip(name, 100))
		}
	default:
		if kattis {
			return fmt.Errorf("%q: want a .c, .cc, .cpp or .py source", clip(name, 100))
		}
		return fmt.Errorf("%q: want a .c, .cc or .cpp source", clip(name, 100))
	}
	for _, part := range strings.Split(name, "/") {
		if !sourceName.MatchString(part) {
			return fmt.Errorf("%q is not a plain file name: use letters, digits, '_', '.', '+' and '-', "+
				"starting with a letter, a digit or '_' (such as checker.cpp)", clip(name, 100))
		}
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
	total := 0.0
	for _, st := range s.Subtasks {
		total += st.Score
	}
	if total > job.MaxScore {
		return specError(ErrBadSubtasks, lines.at("subtasks"), "subtasks: their scores add up to %v, past oj's bound of %g on any score", total, job.MaxScore)
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
