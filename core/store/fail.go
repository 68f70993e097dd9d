package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"oj/core/job"
)

// Ending says how an attempt without a verdict ends.
type Ending struct {
	// Cause is recorded as the submission's last error (and the dead letter's, if it dies).
	Cause string
	// CountsAsFailure is false for a give-back on shutdown: the attempt did not fail.
	CountsAsFailure bool
	// LeaseExpired selects the fence: false = the caller's own live lease (a worker ending
	// its attempt), true = a lease that expired (reclaim ending a dead worker's attempt).
	LeaseExpired bool
	// Backoff is how long the retry waits, given the failures so far.
	Backoff func(failures int) time.Duration
}

// endAttemptSQL ends an attempt without a verdict: back to queued for a retry, or dead
// with verdict SE once the failures reach max_attempts (invariant 7). A run is scratch,
// not a record: past the bound it finishes with SE (its error says why) and leaves no
// dead letter for an operator to tend.
const endAttemptSQL = `
UPDATE submissions
   SET failures = failures + $5,
       state = (CASE WHEN failures + $5 < max_attempts THEN 'queued'
                     WHEN kind = 'run' THEN 'finished' ELSE 'dead' END)::submission_state,
       verdict = CASE WHEN failures + $5 >= max_attempts THEN 'SE' END,
       lease_owner = NULL, lease_until = NULL, last_error = $6, queued_at = $4,
       finished_at = CASE WHEN failures + $5 >= max_attempts THEN $4::timestamptz END
 WHERE id = $1 AND attempt = $2 AND state = 'running'
   AND CASE WHEN $7 THEN lease_until <= $4 ELSE lease_owner = $3 AND lease_until > $4 END
RETURNING state::text, failures, lane, trace_id`

// EndAttempt ends attempt l without a verdict, in one transaction: the state change, the
// retry's outbox row (after the backoff) or the dead letter and its notification, and a
// history row. It returns the new state, or a fence error when the attempt is not the one
// the row holds.
func EndAttempt(ctx context.Context, db DB, owner string, l Lease, e Ending, now time.Time) (job.State, error) {
	var state job.State
	e.Cause = Text(e.Cause)
	err := InTx(ctx, db, func(tx pgx.Tx) error {
		inc := 0
		if e.CountsAsFailure {
			inc = 1
		}
		var st, lane, trace string
		var failures int
		err := tx.QueryRow(ctx, endAttemptSQL, l.ID, l.Attempt, owner, now, inc, e.Cause, e.LeaseExpired).
			Scan(&st, &failures, &lane, &trace)
		if err == pgx.ErrNoRows {
			return explainFence(ctx, tx, l, owner, now)
		}
		if err != nil {
			return err
		}
		state = job.State(st)
		event := EventRetry
		switch {
		case state == job.StateFinished:
			event = EventFinished // a run out of attempts: SE, no dead letter
		case state == job.StateDead:
			event = EventDead
			if err := insertDeadLetter(ctx, tx, l.ID, lane, failures, e.Cause, now); err != nil {
				return err
			}
			if err := enqueue(ctx, tx, "dlq", "dlq", l.ID, trace, 0); err != nil {
				return err
			}
		case !e.CountsAsFailure:
			event = EventGivenBack
			if err := EnqueueJob(ctx, tx, l.ID, job.Lane(lane), trace, 0); err != nil {
				return err
			}
		default:
			var wait time.Duration
			if e.Backoff != nil {
				wait = e.Backoff(failures)
			}
			if err := EnqueueJob(ctx, tx, l.ID, job.Lane(lane), trace, wait); err != nil {
				return err
			}
		}
		worker := owner
		if e.LeaseExpired {
			worker = ""
		}
		return AddHistory(ctx, tx, History{SubmissionID: l.ID, At: now, Event: event, Attempt: l.Attempt,
			Worker: worker, Detail: e.Cause})
	})
	if err != nil {
		return "", fmt.Errorf("end attempt: %w", err)
	}
	return state, nil
}

// Cancel cancels a live submission. It bumps the attempt so that a late result of the
// running attempt is fenced off (invariant 4). A submission already terminal is
// ErrConflict. Run it in a transaction (InDryTx) to have the update and its history row
// land together.
func Cancel(ctx context.Context, db DB, id, actor string, now time.Time) error {
	return InTx(ctx, db, func(tx pgx.Tx) error {
		var attempt int
		err := tx.QueryRow(ctx, `
			UPDATE submissions SET state = 'canceled', attempt = attempt + 1, lease_owner = NULL,
			       lease_until = NULL, finished_at = $2
			 WHERE id = $1 AND state IN ('queued', 'running')
			RETURNING attempt`, id, now).Scan(&attempt)
		if err == pgx.ErrNoRows {
			var state string
			if err := tx.QueryRow(ctx, `SELECT state::text FROM submissions WHERE id = $1`, id).Scan(&state); err != nil {
				return translate(err, "cancel")
			}
			return fmt.Errorf("cancel: submission is %s: %w", state, ErrConflict)
		}
		if err != nil {
			return err
		}
		return AddHistory(ctx, tx, History{SubmissionID: id, At: now, Event: EventCanceled, Attempt: attempt, Actor: actor})
	})
}
