package wire

import "time"

// Trace is the answer of GET /admin/v1/submissions/{id}/trace.
type Trace struct {
	Submission TraceSubmission `json:"submission"`
	Attempts   []TraceAttempt  `json:"attempts"`
	Events     []TraceEvent    `json:"events"`
	DeadLetter *DeadLetter     `json:"dead_letter"`
}

// TraceSubmission is the submission with the operational fields an admin needs.
type TraceSubmission struct {
	Submission
	OwnerID *int64 `json:"owner_id"`
	// Owner is the name of the token that made it ("" for a submission without one, such
	// as a verification's), as the submissions list shows it.
	Owner       string     `json:"owner"`
	Lane        string     `json:"lane"`
	Failures    int        `json:"failures"`
	MaxAttempts int        `json:"max_attempts"`
	LeaseOwner  string     `json:"lease_owner,omitempty"`
	LeaseUntil  *time.Time `json:"lease_until,omitempty"`
	LastError   string     `json:"last_error"`
	TraceID     string     `json:"trace_id"`
	QueuedAt    time.Time  `json:"queued_at"`
	StartedAt   *time.Time `json:"started_at"`
}

// TraceAttempt is one attempt: who judged it, when, and how it ended.
type TraceAttempt struct {
	Attempt   int        `json:"attempt"`
	Worker    string     `json:"worker"`
	ClaimedAt *time.Time `json:"claimed_at"`
	EndedAt   *time.Time `json:"ended_at"`
	// Outcome: finished, retry, dead, given_back, canceled, reclaimed (lease expired and a
	// later attempt took over), or "" while it runs.
	Outcome   string `json:"outcome"`
	Verdict   string `json:"verdict,omitempty"`
	Error     string `json:"error,omitempty"`
	Reclaimed bool   `json:"reclaimed"`
}

// TraceEvent is one row of the submission's history.
type TraceEvent struct {
	At      time.Time `json:"at"`
	Event   string    `json:"event"`
	Attempt int       `json:"attempt"`
	Worker  string    `json:"worker,omitempty"`
	Actor   string    `json:"actor,omitempty"`
	Detail  string    `json:"detail,omitempty"`
}
