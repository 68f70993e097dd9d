package wire

import "time"

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

// SubmissionSummary is a submission in a list: no source, no compile output, no cases
// (GET /api/v1/submissions/{id} has them). Verdict, score, time and memory are null
// until the submission has a verdict.
type SubmissionSummary struct {
	ID         string     `json:"id"`
	ProblemID  string     `json:"problem_id"`
	Language   string     `json:"language"`
	State      string     `json:"state"`
	Verdict    *string    `json:"verdict"`
	Score      *float64   `json:"score"`
	Attempt    int        `json:"attempt"`
	TimeMS     *int       `json:"time_ms"`
	MemoryKB   *int       `json:"memory_kb"`
	CreatedAt  time.Time  `json:"created_at"`
	FinishedAt *time.Time `json:"finished_at"`
	// Owner is the name of the token that made it ("" for a submission without one).
	Owner    string            `json:"owner"`
	Metadata map[string]string `json:"metadata"`
	// Purpose is "user", or "verify" for a submission a problem's verification made
	// from its package's labeled sources (listed only with ?purpose=verify or all).
	Purpose string `json:"purpose"`
}

// SubmissionList is a page of GET /admin/v1/submissions (or GET /api/v1/submissions),
// newest first; NextCursor is empty on the last page.
type SubmissionList struct {
	Items      []SubmissionSummary `json:"items"`
	NextCursor string              `json:"next_cursor"`
}

// ListSubmissionsQuery is the query of GET /admin/v1/submissions (and of a token's own
// list, GET /api/v1/submissions, which takes no Owner): empty fields match everything,
// Limit 0 is the server's default (50; at most 500), Cursor is the previous page's
// NextCursor, Metadata keeps submissions carrying every one of its tags (meta.KEY=VALUE).
type ListSubmissionsQuery struct {
	State     string
	ProblemID string
	Owner     string
	Metadata  map[string]string
	// Purpose is user (the server's default), verify or all.
	Purpose string
	Limit   int
	Cursor  string
}

// ActionRequest is the optional body of rejudge and cancel.
type ActionRequest struct {
	DryRun bool `json:"dry_run"`
}

// RejudgeResult counts the submissions sent to the rejudge lane. In a dry run none is:
// Rejudged is 0 and WouldRejudge says how many would be.
type RejudgeResult struct {
	DryRun       bool `json:"dry_run"`
	Rejudged     int  `json:"rejudged"`
	WouldRejudge int  `json:"would_rejudge"`
	Requested    int  `json:"requested"`
}

// CancelResult says whether the submission was canceled (1) or not (0). In a dry run
// nothing is canceled: Canceled is 0 and WouldCancel says whether it would be.
type CancelResult struct {
	DryRun      bool `json:"dry_run"`
	Canceled    int  `json:"canceled"`
	WouldCancel int  `json:"would_cancel"`
}
