package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"oj/core/job"
)

func insertDeadLetter(ctx context.Context, db DB, id, lane string, attempts int, cause string, now time.Time) error {
	_, err := db.Exec(ctx, `INSERT INTO dead_letters (submission_id, lane, attempts, last_error, dead_since)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (submission_id) DO UPDATE SET attempts = EXCLUDED.attempts,
		    last_error = EXCLUDED.last_error, dead_since = EXCLUDED.dead_since`, id, lane, attempts, Text(cause), now)
	if err != nil {
		return fmt.Errorf("insert dead letter: %w", err)
	}
	return nil
}

// DeadLetter is a submission that failed for good.
type DeadLetter struct {
	SubmissionID string    `json:"submission_id"`
	Lane         string    `json:"lane"`
	Attempts     int       `json:"attempts"`
	LastError    string    `json:"last_error"`
	DeadSince    time.Time `json:"dead_since"`
}

// ListDeadLetters pages through dead letters, oldest first; after is the last submission
// id of the previous page ("" for the first page).
func ListDeadLetters(ctx context.Context, db DB, limit int, afterSince time.Time, afterID string) ([]DeadLetter, error) {
	if afterID == "" {
		afterID = "00000000-0000-0000-0000-000000000000"
	}
	rows, err := db.Query(ctx, `SELECT submission_id::text, lane, attempts, last_error, dead_since FROM dead_letters
		WHERE (dead_since, submission_id) > ($2, $3::uuid) ORDER BY dead_since, submission_id LIMIT $1`,
		limit, afterSince, afterID)
	if err != nil {
		return nil, fmt.Errorf("list dead letters: %w", err)
	}
	defer rows.Close()
	var out []DeadLetter
	for rows.Next() {
		var d DeadLetter
		if err := rows.Scan(&d.SubmissionID, &d.Lane, &d.Attempts, &d.LastError, &d.DeadSince); err != nil {
			return nil, fmt.Errorf("list dead letters: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// CountDeadLetters counts the dead letters.
func CountDeadLetters(ctx context.Context, db DB) (int64, error) {
	var n int64
	if err := db.QueryRow(ctx, `SELECT count(*) FROM dead_letters`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count dead letters: %w", err)
	}
	return n, nil
}

// Requeue sends terminal submissions back to the queue with a fresh failure budget: a
// replay of dead letters (event "replayed") or a rejudge (event "rejudged", usually on the
// rejudge lane). It never writes to Redis: the new attempt goes through the outbox. A
// replay removes the dead letter; the history keeps the record. With dryRun nothing
// changes and the count is what would have been requeued.
func Requeue(ctx context.Context, db DB, ids []string, lane job.Lane, event, actor string, dryRun bool, now time.Time) (int, error) {
	var n int
	err := InTx(ctx, db, func(tx pgx.Tx) error {
		cond := `state IN ('finished', 'dead', 'canceled')`
		if event == "replayed" {
			cond = `state = 'dead'`
		}
		rows, err := tx.Query(ctx, `
			UPDATE submissions SET state = 'queued', failures = 0, verdict = NULL, score = NULL,
			       time_ms = NULL, memory_kb = NULL, compile_output = '', cases = '[]', last_error = '',
			       finished_at = NULL, queued_at = $2, lane = coalesce(NULLIF($3, ''), lane)
			 WHERE id = ANY($1::text[]::uuid[]) AND `+cond+`
			RETURNING id::text, lane, trace_id, attempt`, ids, now, string(lane))
		if err != nil {
			return err
		}
		type row struct {
			id, lane, trace string
			attempt         int
		}
		var done []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, &r.lane, &r.trace, &r.attempt); err != nil {
				return err
			}
			done = append(done, r)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		n = len(done)
		for _, r := range done {
			if err := EnqueueJob(ctx, tx, r.id, job.Lane(r.lane), r.trace, 0); err != nil {
				return err
			}
			if err := AddHistory(ctx, tx, History{SubmissionID: r.id, At: now, Event: event, Attempt: r.attempt, Actor: actor}); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM dead_letters WHERE submission_id = ANY($1::text[]::uuid[])`, ids); err != nil {
			return err
		}
		if dryRun {
			return errRollback
		}
		return nil
	})
	if err != nil && err != errRollback {
		return 0, fmt.Errorf("requeue: %w", err)
	}
	return n, nil
}
