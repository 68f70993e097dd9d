package problem

import (
	"slices"
	"time"
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
	// Languages are the oj languages a submission may be in; empty: every language
	// the judge runs (languages.go).
	Languages []string `yaml:"languages,omitempty"`
	// TimeFactors multiply the time limit for a language, on top of the judge's own
	// time_factor of that language; a language not listed: 1.
	TimeFactors map[string]float64 `yaml:"time_factors,omitempty"`
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

// TimeLimit is the problem's CPU time limit per case (before a language's factor).
func (s Spec) TimeLimit() time.Duration { return time.Duration(s.TimeLimitMS) * time.Millisecond }

// MemoryLimitBytes is the problem's memory limit per case (before a language's factor).
func (s Spec) MemoryLimitBytes() int64 { return int64(s.MemoryLimitMB) << 20 }
