// Package wire holds the JSON shapes of oj's HTTP API, shared by the server (core/api)
// and its Go client (core/api/client), so that ojctl and the TUI link no server code.
// Field names are the contract of DESIGN.md's "HTTP API" section.
package wire

import "time"

// Error is the body of every error answer: {"error":{"code":"…","message":"…"}}.
type Error struct {
	Error ErrorBody `json:"error"`
}

// ErrorBody says what went wrong: a stable machine code and a human message.
type ErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// SubmitRequest is the body of POST /api/v1/submissions.
type SubmitRequest struct {
	ProblemID string `json:"problem_id"`
	Language  string `json:"language"`
	Source    string `json:"source"`
	// WaitMS asks the server to wait up to this long (capped at 10 s) for the verdict.
	WaitMS *int64 `json:"wait_ms,omitempty"`
	// Metadata is the caller's own tags (at most 16; keys [a-z0-9_.-]{1,64}, values at
	// most 256 bytes of text), stored and echoed wherever the submission appears.
	Metadata map[string]string `json:"metadata,omitempty"`
}

// Accepted is the 202 answer of a submit: the submission exists and is not judged yet.
type Accepted struct {
	ID    string `json:"id"`
	State string `json:"state"`
}

// Submission is a submission as returned by the API.
type Submission struct {
	ID             string   `json:"id"`
	ProblemID      string   `json:"problem_id"`
	ProblemVersion int      `json:"problem_version"`
	Language       string   `json:"language"`
	State          string   `json:"state"`
	Verdict        *string  `json:"verdict"`
	Score          *float64 `json:"score"`
	TimeMS         *int     `json:"time_ms"`
	MemoryKB       *int     `json:"memory_kb"`
	Attempt        int      `json:"attempt"`
	CompileOutput  string   `json:"compile_output"`
	// Error is the reason of a dead or SE submission (the last attempt's error), empty
	// otherwise.
	Error      string     `json:"error"`
	CreatedAt  time.Time  `json:"created_at"`
	FinishedAt *time.Time `json:"finished_at"`
	Cases      []Case     `json:"cases"`
	// Metadata is what the submit carried ({} when nothing).
	Metadata map[string]string `json:"metadata"`
	// Purpose is "user", or "verify" for a submission a problem's verification made from
	// its package's labeled sources: it has no owner and counts for no user.
	Purpose string `json:"purpose"`
	// Waiting says why a queued submission is not being judged when that is not just its
	// turn: "queued: no live worker runs java17". Absent otherwise.
	Waiting string `json:"waiting,omitempty"`
	// Groups are its problem version's groups graded from its cases, once it has a
	// verdict; empty for a problem without groups or subtasks.
	Groups []GroupResult `json:"groups"`
}

// Terminal reports whether the submission's state is final.
func (s *Submission) Terminal() bool {
	return s.State == "finished" || s.State == "dead" || s.State == "canceled"
}

// Case is one test case's result. Message never holds the expected output or the test
// input; CheckerMessage, the checker's or interactor's whole message, is sent to admins
// only. Sample says the case is one of the problem's samples: of any other case, the
// submission's owner sees the verdict, time, memory and score, and a message that only
// names the verdict.
type Case struct {
	Index          int     `json:"index"`
	Subtask        int     `json:"subtask"`
	Sample         bool    `json:"sample"`
	Verdict        string  `json:"verdict"`
	TimeMS         int     `json:"time_ms"`
	MemoryKB       int     `json:"memory_kb"`
	Score          float64 `json:"score"`
	Message        string  `json:"message"`
	CheckerMessage string  `json:"checker_message,omitempty"`
}

// CaseDetail is the answer of GET /api/v1/submissions/{id}/cases/{n}: one case of the
// submission's current result with the excerpts of what the solution wrote (bounded by
// judge.excerpt_bytes). The same rule as Case holds: Message is safe for the owner,
// CheckerMessage is sent to admins only. Attempt is the attempt that produced it.
type CaseDetail struct {
	SubmissionID string `json:"submission_id"`
	Attempt      int    `json:"attempt"`
	Case
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	// ExcerptsNote says why Stdout and Stderr are empty when the excerpts could not be
	// had (not stored, removed, unreadable); empty when they are what the solution wrote.
	ExcerptsNote string `json:"excerpts_note,omitempty"`
}

// StateEvent is the data of one `state` or `case` Server-Sent Event. Submission is set on
// the terminal event (the stream closes after it); Case is set on a `case` event, sent
// while the attempt runs for each case judged (its score is known only at the end).
//
// RenderError is set, and Submission left out, when the terminal event's submission could
// not be rendered (a stored value JSON cannot hold): GET /api/v1/submissions/{id} answers
// 500 for it too, and the stream still ends.
type StateEvent struct {
	ID          string      `json:"id"`
	State       string      `json:"state"`
	Attempt     int         `json:"attempt"`
	Submission  *Submission `json:"submission,omitempty"`
	Case        *Case       `json:"case,omitempty"`
	RenderError string      `json:"render_error,omitempty"`
}

// Language is one configured language.
type Language struct {
	ID string `json:"id"`
	// Name carries the version a live worker's self-check detected (Detected), or none.
	Name       string `json:"name"`
	Detected   bool   `json:"detected"`
	Lane       string `json:"lane"`
	SourceFile string `json:"source_file"`
	Compiled   bool   `json:"compiled"`
	// Compile and Run are the commands as configured, placeholders unexpanded
	// (docs/languages.md); Compile is empty for a language without a compile step.
	Compile      []string `json:"compile"`
	Run          []string `json:"run"`
	TimeFactor   float64  `json:"time_factor"`
	MemoryFactor float64  `json:"memory_factor"`
}

// Languages is the answer of GET /api/v1/languages.
type Languages struct {
	Languages []Language `json:"languages"`
}

// Problem is the answer of GET and PUT /api/v1/problems/{id}.
type Problem struct {
	ID            string    `json:"id"`
	Title         string    `json:"title"`
	TimeLimitMS   int       `json:"time_limit_ms"`
	MemoryLimitMB int       `json:"memory_limit_mb"`
	Version       int       `json:"version"`
	SHA256        string    `json:"sha256"`
	CaseCount     int       `json:"case_count"`
	Subtasks      []Subtask `json:"subtasks"`
	Checker       string    `json:"checker"`
	Interactive   bool      `json:"interactive"`
	// StopOnFirstFailure: the cases after the first one that is not AC are skipped (SK).
	StopOnFirstFailure bool `json:"stop_on_first_failure"`
	// Samples are the sample cases: a submission's owner sees what the solution wrote on
	// them. PublicTests: the owner sees it on every case.
	Samples     []int     `json:"samples"`
	PublicTests bool      `json:"public_tests"`
	CreatedAt   time.Time `json:"created_at"`
	// Format is the format the package was uploaded in: oj, kattis or polygon;
	// FormatVersion the format's own version (Kattis: legacy, 2023-07-draft, 2025-09).
	Format        string `json:"format"`
	FormatVersion string `json:"format_version,omitempty"`
	// TimeLimitProvisional: the package gives no time limit; TimeLimitMS is used until a
	// verify derives the limit from its accepted submissions.
	TimeLimitProvisional bool `json:"time_limit_provisional"`
	// Scoring: the problem scores by test groups (Kattis style).
	Scoring bool `json:"scoring"`
	// Statements are the public statement files: the statement and the files it
	// references (GET …/statement/{path}, any token).
	Statements []string `json:"statements"`
	// StatementsPrivate are the statement material only admins read by the same path:
	// editorials (Polygon tutorials, solution slides), properties files, sources the
	// statement does not reference (shown to admins; absent when there is none).
	StatementsPrivate []string `json:"statements_private,omitempty"`
	// LabeledSubmissions counts the package's own submissions, which verify judges.
	LabeledSubmissions int `json:"labeled_submissions"`
	// Import is what was mapped from the original package (admins only).
	Import *ProblemImport `json:"import,omitempty"`
	// Verify is the version's latest verification, if any.
	Verify *VerifySummary `json:"verify,omitempty"`
	// Grading is how the version scores: pass/fail or a score, and its group tree.
	Grading Grading `json:"grading"`
	// TimeLimitDerivation is where the time limit comes from when the package gives
	// timing (its limit is, or was, derived at verify); null otherwise.
	TimeLimitDerivation *TimeLimitDerivation `json:"time_limit_derivation"`
}

// ProblemImport says how a package was read: what became what, and what is kept
// unused and why.
type ProblemImport struct {
	Mapped []Mapped `json:"mapped"`
	Notes  []string `json:"notes"`
}

// Mapped is one line of a ProblemImport.
type Mapped struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// ProblemSummary is a problem in GET /api/v1/problems: its latest version, how many
// submissions it has, and whether it is archived (new submissions answer 404).
type ProblemSummary struct {
	ID          string     `json:"id"`
	Title       string     `json:"title"`
	Version     int        `json:"version"`
	SHA256      string     `json:"sha256"`
	CaseCount   int        `json:"case_count"`
	Submissions int64      `json:"submissions"`
	Archived    bool       `json:"archived"`
	ArchivedAt  *time.Time `json:"archived_at"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	// The latest version's limits and the format its package came in (oj, kattis,
	// polygon); TimeLimitProvisional while its limit waits for a verify to derive it.
	TimeLimitMS          int    `json:"time_limit_ms"`
	MemoryLimitMB        int    `json:"memory_limit_mb"`
	Format               string `json:"format"`
	TimeLimitProvisional bool   `json:"time_limit_provisional"`
	// Verify is the latest version's latest verification in short: its state (running,
	// passed, failed) and summary; null when it was never verified.
	Verify *ProblemVerifyState `json:"verify"`
}

// ProblemVerifyState is a verification's state and summary, as the problem list shows it.
type ProblemVerifyState struct {
	State   string `json:"state"`
	Summary string `json:"summary"`
}

// ProblemList is the answer of GET /api/v1/problems (admin), ordered by id.
type ProblemList struct {
	Items []ProblemSummary `json:"items"`
}

// ProblemRemoved is the answer of DELETE /api/v1/problems/{id}[?dry_run=true]: a problem
// without submissions is deleted, one with submissions is archived (its data stays for
// them). Action is "deleted" or "archived" (with dry_run: what would be done).
type ProblemRemoved struct {
	DryRun      bool   `json:"dry_run"`
	ID          string `json:"id"`
	Action      string `json:"action"`
	Submissions int64  `json:"submissions"`
}

// Subtask is a group of cases scored together.
type Subtask struct {
	Score float64 `json:"score"`
	Cases []int   `json:"cases"`
}

// Health is the answer of /healthz and /readyz.
type Health map[string]string
