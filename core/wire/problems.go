package wire

import "time"

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
	// Languages are the only languages a submission may be in ([]: every language the
	// judge runs); TimeFactors multiply the time limit per language ({}: none).
	Languages   []string           `json:"languages"`
	TimeFactors map[string]float64 `json:"time_factors"`
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
