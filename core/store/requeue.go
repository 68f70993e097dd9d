package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"oj/core/job"
)

// Replay sends dead submissions back to the queue with a fresh failure budget (history
// event "replayed") and removes their dead letters; the history keeps the record. It
// never writes to Redis: the new attempt goes through the outbox. It returns how many it
// replayed; ids that are not dead are left alone. Dry runs: run it in InDryTx.
func Replay(ctx context.Context, db DB, ids []string, actor string, now time.Time) (int, error) {
	n, err := requeue(ctx, db, ids, "", EventReplayed, `state = 'dead'`, actor, now)
	if err != nil {
		return 0, fmt.Errorf("replay: %w", err)
	}
	return n, nil
}

// Rejudge sends judged (finished, dead or canceled) submissions back to the queue on lane
// (history event "rejudged"), through the outbox, with a fresh failure budget; a dead
// letter of theirs is removed. It returns how many it requeued.
func Rejudge(ctx context.Context, db DB, ids []string, lane job.Lane, actor string, now time.Time) (int, error) {
	n, err := requeue(ctx, db, ids, lane, EventRejudged, `state IN ('finished', 'dead', 'canceled')`, actor, now)
	if err != nil {
		return 0, fmt.Errorf("rejudge: %w", err)
	}
	return n, nil
}

// requeue is Replay and Rejudge: cond is a constant of theirs, never outside input.
func requeue(ctx context.Context, db DB, ids []string, lane job.Lane, event Event, cond, actor string, now time.Time) (int, error) {
	var n int
	err := InTx(ctx, db, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			UPDATE submissions SET state = 'queued', failures = 0, verdict = NULL, score = NULL,
			       time_ms = NULL, memory_kb = NULL, compile_output = '', compile_raw = NULL, cases = '[]', last_error = '',
			       finished_at = NULL, queued_at = $2, lane = coalesce(NULLIF($3, ''), lane)
			 WHERE id = ANY($1::text[]::uuid[]) AND kind = 'submission' AND `+cond+`
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
		_, err = tx.Exec(ctx, `DELETE FROM dead_letters WHERE submission_id = ANY($1::text[]::uuid[])`, ids)
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}
