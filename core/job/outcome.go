package job

import "encoding/json"

// Task is what a worker hands the judge: one claimed attempt of one submission.
type Task struct {
	SubmissionID   string
	ProblemID      string
	ProblemVersion int
	ProblemSHA256  string
	Language       string
	Source         string
	Attempt        int
	Lane           Lane
	TraceID        string
	// TimeLimitMS is the CPU limit per case the task is judged with (before the
	// language's factor): its version's, which verify may have derived after the
	// package was stored, or the submission's own (a verification's). 0: the package's.
	TimeLimitMS int
	// Kind is KindSubmission (judged against a problem) or KindRun (run on Run's inputs,
	// no problem, no verdict).
	Kind Kind
	// Run is what a run runs on; nil for a submission.
	Run *RunSpec
}

// Kind is what a row of the submissions table is.
type Kind string

// Kinds.
const (
	KindSubmission Kind = "submission"
	KindRun        Kind = "run"
)

// RunSpec is a run's inputs and the limits applied to each (the caller's, clamped to
// the configured maxima), as stored with it.
type RunSpec struct {
	// Face is what the face a run came through keeps to show it back in its own terms
	// (the Judge0 face: the language id asked for, the expected output, the request's
	// fields as given). The judge never reads it.
	Face json.RawMessage `json:"face,omitempty"`

	Stdins      []string `json:"stdins"`
	TimeMS      int      `json:"time_ms"`
	MemoryMB    int      `json:"memory_mb"`
	OutputBytes int      `json:"output_bytes"`
	// Clamped says which of the caller's limits were over the maxima, and what applied.
	Clamped []string `json:"clamped,omitempty"`

	// The options below are all optional: zero is a run as it has always been.

	// WallMS is the wall-clock limit per input (0: the judge's, derived from TimeMS).
	WallMS int `json:"wall_ms,omitempty"`
	// ExtraTimeMS is CPU time the program may use past TimeMS before it is killed; an
	// input that used more than TimeMS is TLE all the same (it only delays the kill, so
	// that the time reported is the time used).
	ExtraTimeMS int `json:"extra_time_ms,omitempty"`
	// StackKB is RLIMIT_STACK (0: as large as the memory limit).
	StackKB int `json:"stack_kb,omitempty"`
	// Processes bounds the program's processes and threads together (0: the language's).
	Processes int `json:"processes,omitempty"`
	// MaxFileKB is the largest file the program may create or write (RLIMIT_FSIZE; a
	// write past it kills the program with SIGXFSZ). 0: the output limit.
	MaxFileKB int `json:"max_file_kb,omitempty"`
	// CompilerArgs are appended to the language's compile command just before the source
	// argument, and Args to the run command: argv entries, never seen by a shell.
	CompilerArgs []string `json:"compiler_args,omitempty"`
	Args         []string `json:"args,omitempty"`
	// Files is a zip unpacked into the work dir beside the source before compiling
	// (bounded like a problem package: entries, sizes, no links, no path outside).
	Files []byte `json:"files,omitempty"`
	// RedirectStderr sends the program's standard error into its standard output (one
	// stream, in the order written); RunResult.Stderr stays empty.
	RedirectStderr bool `json:"redirect_stderr,omitempty"`
	// Runs is how many times each input is run (0 or 1: once); the result is the last
	// run's, with its time and memory the averages over all of them.
	Runs int `json:"runs,omitempty"`
}

// RunStatus is how one input's run ended.
type RunStatus string

// Run statuses: the program ended by itself with exit code 0 (OK), went over a limit, or
// failed (non-zero exit, a signal); SE when the sandbox reported its own failure for
// that input (the other inputs still run).
const (
	RunOK  RunStatus = "OK"
	RunTLE RunStatus = "TLE"
	RunMLE RunStatus = "MLE"
	RunOLE RunStatus = "OLE"
	RunRE  RunStatus = "RE"
	RunSE  RunStatus = "SE"
)

// RunResult is one input's run: how it ended, its figures, and the start of what it
// wrote (at most RunSpec.OutputBytes each; Truncated says there was more).
type RunResult struct {
	Index           int       `json:"index"`
	Status          RunStatus `json:"status"`
	ExitCode        int       `json:"exit_code"`
	Signal          int       `json:"signal"`
	TimeMS          int       `json:"time_ms"`
	WallMS          int       `json:"wall_ms"`
	MemoryKB        int       `json:"memory_kb"`
	Stdout          string    `json:"stdout"`
	Stderr          string    `json:"stderr"`
	StdoutTruncated bool      `json:"stdout_truncated"`
	StderrTruncated bool      `json:"stderr_truncated"`
	Message         string    `json:"message,omitempty"`
}

// Outcome is the judge's answer for a task. A judge that could not decide (sandbox or
// storage failure) returns an error instead; the worker retries such attempts up to the
// bound and then dead-letters the submission.
type Outcome struct {
	Verdict       Verdict
	Score         float64
	TimeMS        int
	MemoryKB      int
	CompileOutput string
	Cases         []CaseResult
	// Runs is a run's per-input results. A run has no verdict, except CE when its source
	// does not compile (then it has no results).
	Runs []RunResult
	// Reason says why the verdict is SE when no case says it: the scores themselves were
	// wrong (a group's score outside its range or outside ±MaxScore). Empty otherwise.
	Reason string
}

// CaseResult is one test case's result. Message is what the submission's owner sees and
// never holds the expected output or the test input; CheckerMessage is the checker's or
// interactor's whole message, for admins only (the API drops it for everyone else).
type CaseResult struct {
	Index          int
	Subtask        int
	Verdict        Verdict
	TimeMS         int
	MemoryKB       int
	Score          float64
	Message        string
	CheckerMessage string
}
