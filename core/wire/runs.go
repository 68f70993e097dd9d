package wire

import "time"

// RunRequest is the body of POST /api/v1/runs: a program and its inputs, no problem.
// Stdin is one input; Stdins up to ten (not both; neither: one empty input).
type RunRequest struct {
	Language string     `json:"language"`
	Source   string     `json:"source"`
	Stdin    *string    `json:"stdin,omitempty"`
	Stdins   []string   `json:"stdins,omitempty"`
	Limits   *RunLimits `json:"limits,omitempty"`
	// WaitMS asks the server to wait up to this long (capped at 10 s) for the results.
	WaitMS *int64 `json:"wait_ms,omitempty"`
	// Metadata is the caller's own tags, as on a submission.
	Metadata map[string]string `json:"metadata,omitempty"`
}

// RunLimits are a run's limits per input: CPU time and memory as asked for (0 or absent:
// the defaults) or as applied. OutputBytes, in an answer, is how much of each output is
// kept.
type RunLimits struct {
	TimeMS      int `json:"time_ms,omitempty"`
	MemoryMB    int `json:"memory_mb,omitempty"`
	OutputBytes int `json:"output_bytes,omitempty"`
}

// RunAccepted is the 202 answer of POST /api/v1/runs: the run exists and has not run
// yet. Limits are those applied; Clamped says which asked-for limits were over the
// maxima.
type RunAccepted struct {
	ID      string    `json:"id"`
	State   string    `json:"state"`
	Limits  RunLimits `json:"limits"`
	Clamped []string  `json:"clamped"`
}

// Run is a run as returned by the API. Verdict is null, or CE (the source did not
// compile: CompileOutput says why, Results is empty) or SE (it could not be run: Error
// says why). Results has one entry per input once the run finished otherwise.
type Run struct {
	ID            string            `json:"id"`
	Language      string            `json:"language"`
	State         string            `json:"state"`
	Verdict       *string           `json:"verdict"`
	Attempt       int               `json:"attempt"`
	Limits        RunLimits         `json:"limits"`
	Clamped       []string          `json:"clamped"`
	Inputs        int               `json:"inputs"`
	CompileOutput string            `json:"compile_output"`
	Error         string            `json:"error"`
	Results       []RunResult       `json:"results"`
	Metadata      map[string]string `json:"metadata"`
	CreatedAt     time.Time         `json:"created_at"`
	FinishedAt    *time.Time        `json:"finished_at"`
	// Origin is the face the run came through: "api" (this API) or "judge0" (the Judge0
	// face), and PublicToken the capability that face handed out for it (its Judge0
	// token), if any.
	Origin      string `json:"origin"`
	PublicToken string `json:"public_token,omitempty"`
}

// Terminal reports whether the run's state is final.
func (r *Run) Terminal() bool {
	return r.State == "finished" || r.State == "dead" || r.State == "canceled"
}

// RunResult is how the program ran on one input (Index, from 1): Status OK, TLE, MLE,
// OLE, RE or SE; exit code or signal; CPU and wall time; peak memory; the start of
// stdout and stderr (at most limits.output_bytes each, Truncated when there was more).
type RunResult struct {
	Index           int    `json:"index"`
	Status          string `json:"status"`
	ExitCode        int    `json:"exit_code"`
	Signal          int    `json:"signal"`
	TimeMS          int    `json:"time_ms"`
	WallMS          int    `json:"wall_ms"`
	MemoryKB        int    `json:"memory_kb"`
	Stdout          string `json:"stdout"`
	Stderr          string `json:"stderr"`
	StdoutTruncated bool   `json:"stdout_truncated"`
	StderrTruncated bool   `json:"stderr_truncated"`
	Message         string `json:"message"`
}
