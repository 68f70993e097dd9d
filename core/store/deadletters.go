package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
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
	SubmissionID string
	Lane         string
	Attempts     int
	LastError    string
	DeadSince    time.Time
}

const deadLetterColumns = `submission_id::text, lane, attempts, last_error, dead_since`

func scanDeadLetter(row pgx.Row, d *DeadLetter) error {
	return row.Scan(&d.SubmissionID, &d.Lane, &d.Attempts, &d.LastError, &d.DeadSince)
}

// ListDeadLetters pages through dead letters, oldest first; after is the last submission
// id of the previous page ("" for the first page).
func ListDeadLetters(ctx context.Context, db DB, limit int, afterSince time.Time, afterID string) ([]DeadLetter, error) {
	if afterID == "" {
		afterID = "00000000-0000-0000-0000-000000000000"
	}
	return queryAll(ctx, db, "list dead letters", scanDeadLetter, `SELECT `+deadLetterColumns+` FROM dead_letters
		WHERE (dead_since, submission_id) > ($2, $3::uuid) ORDER BY dead_since, submission_id LIMIT $1`,
		limit, afterSince, afterID)
}

// CountDeadLetters counts the dead letters.
func CountDeadLetters(ctx context.Context, db DB) (int64, error) {
	var n int64
	if err := db.QueryRow(ctx, `SELECT count(*) FROM dead_letters`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count dead letters: %w", err)
	}
	return n, nil
}

// PurgeDeadLetters removes the dead letters of ids without judging them again and
// returns how many it removed; ids without a dead letter are left alone. The submissions
// stay dead with their verdict and error, and each gets a "purged" history event with
// the actor's name and the dead letter's last error, so the trace keeps the record
// (invariant 7). Dry runs: run it in InDryTx.
func PurgeDeadLetters(ctx context.Context, db DB, ids []string, actor string, now time.Time) (int, error) {
	var n int
	err := InTx(ctx, db, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `DELETE FROM dead_letters d USING submissions s
			WHERE d.submission_id = ANY($1::text[]::uuid[]) AND s.id = d.submission_id
			RETURNING d.submission_id::text, s.attempt, d.last_error`, ids)
		if err != nil {
			return err
		}
		var purged []History
		for rows.Next() {
			h := History{At: now, Event: EventPurged, Actor: actor}
			if err := rows.Scan(&h.SubmissionID, &h.Attempt, &h.Detail); err != nil {
				rows.Close()
				return err
			}
			purged = append(purged, h)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		for _, h := range purged {
			if err := AddHistory(ctx, tx, h); err != nil {
				return err
			}
		}
		n = len(purged)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("purge dead letters: %w", err)
	}
	return n, nil
}
