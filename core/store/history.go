package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Event is what happened to a submission in one history row. The column has a CHECK
// constraint listing the same values (migrations 00003 and 00004), as submissions.state
// is an enum.
type Event string

// The history events.
const (
	EventSubmitted Event = "submitted"
	EventClaimed   Event = "claimed"
	EventFinished  Event = "finished"
	EventRetry     Event = "retry"
	EventGivenBack Event = "given_back"
	EventDead      Event = "dead"
	EventRedriven  Event = "redriven"
	EventReplayed  Event = "replayed"
	EventRejudged  Event = "rejudged"
	EventCanceled  Event = "canceled"
	// EventPurged: an operator removed the dead letter; the submission stays dead.
	EventPurged Event = "purged"
)

// Events lists every history event, in the order of a submission's life.
var Events = []Event{EventSubmitted, EventClaimed, EventFinished, EventRetry, EventGivenBack, EventDead,
	EventRedriven, EventReplayed, EventRejudged, EventCanceled, EventPurged}

// History is one event in a submission's trace.
type History struct {
	SubmissionID string
	At           time.Time
	Event        Event
	Attempt      int
	Worker       string
	Actor        string
	Detail       string
}

// AddHistory appends an event to a submission's trace (At zero: now).
func AddHistory(ctx context.Context, db DB, h History) error {
	var at any
	if !h.At.IsZero() {
		at = h.At
	}
	_, err := db.Exec(ctx, `INSERT INTO submission_history (submission_id, at, event, attempt, worker, actor, detail)
		VALUES ($1, coalesce($2::timestamptz, now()), $3, $4, $5, $6, $7)`,
		h.SubmissionID, at, string(h.Event), h.Attempt, Text(h.Worker), Text(h.Actor), Text(h.Detail))
	if err != nil {
		return fmt.Errorf("add history: %w", err)
	}
	return nil
}

// SubmissionHistory returns a submission's trace, oldest first.
func SubmissionHistory(ctx context.Context, db DB, id string) ([]History, error) {
	scan := func(rows pgx.Row, h *History) error {
		h.SubmissionID = id
		return rows.Scan(&h.At, &h.Event, &h.Attempt, &h.Worker, &h.Actor, &h.Detail)
	}
	return queryAll(ctx, db, "submission history", scan, `SELECT at, event, attempt, worker, actor, detail
		FROM submission_history WHERE submission_id = $1 ORDER BY id`, id)
}
