package store

import (
	"context"
	"fmt"
	"time"
)

// History is one event in a submission's trace.
type History struct {
	SubmissionID string    `json:"-"`
	At           time.Time `json:"at"`
	Event        string    `json:"event"` // submitted, claimed, finished, retry, given_back, dead, redriven, replayed, rejudged, canceled
	Attempt      int       `json:"attempt"`
	Worker       string    `json:"worker,omitempty"`
	Actor        string    `json:"actor,omitempty"`
	Detail       string    `json:"detail,omitempty"`
}

// AddHistory appends an event to a submission's trace (At zero: now).
func AddHistory(ctx context.Context, db DB, h History) error {
	var at any
	if !h.At.IsZero() {
		at = h.At
	}
	_, err := db.Exec(ctx, `INSERT INTO submission_history (submission_id, at, event, attempt, worker, actor, detail)
		VALUES ($1, coalesce($2::timestamptz, now()), $3, $4, $5, $6, $7)`,
		h.SubmissionID, at, h.Event, h.Attempt, Text(h.Worker), Text(h.Actor), Text(h.Detail))
	if err != nil {
		return fmt.Errorf("add history: %w", err)
	}
	return nil
}

// SubmissionHistory returns a submission's trace, oldest first.
func SubmissionHistory(ctx context.Context, db DB, id string) ([]History, error) {
	rows, err := db.Query(ctx, `SELECT at, event, attempt, worker, actor, detail FROM submission_history
		WHERE submission_id = $1 ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("submission history: %w", err)
	}
	defer rows.Close()
	var out []History
	for rows.Next() {
		h := History{SubmissionID: id}
		if err := rows.Scan(&h.At, &h.Event, &h.Attempt, &h.Worker, &h.Actor, &h.Detail); err != nil {
			return nil, fmt.Errorf("submission history: %w", err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}
