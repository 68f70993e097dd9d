package wire

import "time"

// OutboxRow is an undelivered outbox row.
type OutboxRow struct {
	ID           int64     `json:"id"`
	Kind         string    `json:"kind"`
	Lane         string    `json:"lane"`
	SubmissionID string    `json:"submission_id"`
	CreatedAt    time.Time `json:"created_at"`
	NextTry      time.Time `json:"next_try"`
	Attempts     int       `json:"attempts"`
	LastError    string    `json:"last_error"`
}

// Outbox is the answer of GET /admin/v1/outbox.
type Outbox struct {
	Backlog     int64       `json:"backlog"`
	OldestAgeMS int64       `json:"oldest_age_ms"`
	Rows        []OutboxRow `json:"rows"`
}
