package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Stray is a live submission the reconciler should look at: queued or with an expired
// lease for a while, and nothing waiting in the outbox for it.
type Stray struct {
	ID       string
	Lane     string
	State    string
	StreamID string // the entry its latest delivered job row became ("" if unknown)
}

// ListStrays returns up to limit strays with ids after afterID (paging), idle since before
// cutoff.
func ListStrays(ctx context.Context, db DB, cutoff time.Time, afterID string, limit int) ([]Stray, error) {
	if afterID == "" {
		afterID = "00000000-0000-0000-0000-000000000000"
	}
	scan := func(rows pgx.Row, s *Stray) error { return rows.Scan(&s.ID, &s.Lane, &s.State, &s.StreamID) }
	return queryAll(ctx, db, "list strays", scan, `
		SELECT s.id::text, s.lane, s.state::text, coalesce(o.stream_id, '')
		  FROM submissions s
		  LEFT JOIN LATERAL (SELECT stream_id FROM outbox WHERE submission_id = s.id AND kind = 'job'
		                      ORDER BY id DESC LIMIT 1) o ON true
		 WHERE ((s.state = 'queued' AND s.queued_at < $1) OR (s.state = 'running' AND s.lease_until < $1))
		   AND s.id > $2::uuid
		   AND NOT EXISTS (SELECT 1 FROM outbox u WHERE u.submission_id = s.id AND u.delivered_at IS NULL)
		 ORDER BY s.id LIMIT $3`, cutoff, afterID, limit)
}

// Redrive gives submissions whose stream entry was lost a new outbox row, if they are
// still live, their lease (if any) is not, and no undelivered row exists for them. It
// returns how many it re-drove.
func Redrive(ctx context.Context, db DB, ids []string, reason string, now time.Time) (int, error) {
	var n int
	err := db.QueryRow(ctx, `
		WITH c AS (
		    SELECT id, lane, trace_id, attempt, language FROM submissions s
		     WHERE id = ANY($1::text[]::uuid[])
		       AND (state = 'queued' OR (state = 'running' AND lease_until <= $2))
		       AND NOT EXISTS (SELECT 1 FROM outbox u WHERE u.submission_id = s.id AND u.delivered_at IS NULL)
		    FOR UPDATE SKIP LOCKED
		), o AS (
		    INSERT INTO outbox (kind, lane, submission_id, trace_id, language) SELECT 'job', lane, id, trace_id, language FROM c
		), h AS (
		    INSERT INTO submission_history (submission_id, at, event, attempt, detail)
		    SELECT id, $2, 'redriven', attempt, $3 FROM c
		)
		SELECT count(*) FROM c`, ids, now, reason).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("redrive: %w", err)
	}
	return n, nil
}
