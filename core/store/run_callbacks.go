package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Run callbacks (00015_run_callbacks.sql): one row per ended run that has a callback
// URL, written by a trigger in the transaction that ends the run, claimed by the
// dispatcher's callback senders under a lease like webhook deliveries, and finished
// with a fenced update. Its body is rendered at the first try and kept with the row.
// Times are the caller's clock.

// RunCallback is one run's callback.
type RunCallback struct {
	ID           string // the webhook-id of every try
	SubmissionID string
	URL          string
	ContentType  string
	Payload      []byte // nil until the first try rendered it
	Status       string // DeliveryPending, DeliveryDelivered, DeliveryFailed
	Attempts     int
	NextTry      time.Time
	ExpiresAt    *time.Time
	LastStatus   *int
	LastError    string
	LastTry      *time.Time
	CreatedAt    time.Time
	DeliveredAt  *time.Time
}

const runCallbackColumns = `c.id::text, c.submission_id::text, c.url, c.content_type, c.payload, c.status, c.attempts,
	c.next_try, c.expires_at, c.last_status, c.last_error, c.last_try, c.created_at, c.delivered_at`

func scanRunCallback(row pgx.Row, c *RunCallback) error {
	return row.Scan(&c.ID, &c.SubmissionID, &c.URL, &c.ContentType, &c.Payload, &c.Status, &c.Attempts, &c.NextTry,
		&c.ExpiresAt, &c.LastStatus, &c.LastError, &c.LastTry, &c.CreatedAt, &c.DeliveredAt)
}

// ClaimRunCallbacks claims up to limit due callbacks, skipping rows another dispatcher
// is claiming: each gets attempts+1 (its fence), owner and a lease until now+lease (it
// is due again then: a dispatcher that dies mid-try leaves it to the next claim). A
// callback claimed for the first time is given its window: it expires at now+window.
func ClaimRunCallbacks(ctx context.Context, db DB, owner string, now time.Time, lease, window time.Duration,
	limit int) ([]RunCallback, error) {
	return queryAll(ctx, db, "claim run callbacks", scanRunCallback, `
		WITH due AS (
		    SELECT id FROM run_callbacks WHERE status = 'pending' AND next_try <= $1
		     ORDER BY next_try, id LIMIT $4 FOR UPDATE SKIP LOCKED)
		UPDATE run_callbacks c SET attempts = c.attempts + 1, lease_owner = $2, lease_until = $3, next_try = $3,
		       expires_at = coalesce(c.expires_at, $1::timestamptz + $5::bigint * interval '1 microsecond')
		  FROM due WHERE c.id = due.id
		RETURNING `+runCallbackColumns, now, owner, now.Add(lease), limit, window.Microseconds())
}

// RunCallbackTry is the result of one try of a claimed callback.
type RunCallbackTry struct {
	ID      string
	Attempt int    // the claim's attempts: the fence
	Outcome string // TryDelivered, TryRetry or TryFailed (TryGone is TryFailed here)
	Status  int    // the HTTP status; 0 when there was no answer
	Error   string
	NextTry time.Time // TryRetry
	// ContentType and Payload are the body this try rendered (the first try), kept for
	// the next; nil Payload leaves the kept one.
	ContentType string
	Payload     []byte
}

// FinishRunCallbacks records tries by owner at now, each fenced by its attempt and
// owner (a try whose lease ended and whose row another dispatcher claimed is not
// recorded), and returns how many were.
func FinishRunCallbacks(ctx context.Context, db DB, owner string, now time.Time, tries []RunCallbackTry) (int, error) {
	n := len(tries)
	ids, attempts, statuses, errs := make([]string, n), make([]int, n), make([]string, n), make([]string, n)
	lastStatuses, nexts := make([]*int, n), make([]time.Time, n)
	types, payloads := make([]string, n), make([][]byte, n)
	for i, t := range tries {
		ids[i], attempts[i], errs[i], nexts[i] = t.ID, t.Attempt, Text(t.Error), now
		types[i], payloads[i] = t.ContentType, t.Payload
		if t.Status != 0 {
			lastStatuses[i] = &tries[i].Status
		}
		switch t.Outcome {
		case TryDelivered:
			statuses[i] = DeliveryDelivered
		case TryRetry:
			statuses[i], nexts[i] = DeliveryPending, t.NextTry
		default:
			statuses[i] = DeliveryFailed
		}
	}
	tag, err := db.Exec(ctx, `UPDATE run_callbacks c SET status = i.status, next_try = i.next_try,
		    last_status = i.last_status, last_error = i.error, last_try = $9, lease_owner = '', lease_until = NULL,
		    delivered_at = CASE WHEN i.status = 'delivered' THEN $9::timestamptz END,
		    payload = coalesce(c.payload, i.payload),
		    content_type = CASE WHEN c.payload IS NULL AND i.payload IS NOT NULL THEN i.content_type ELSE c.content_type END
		  FROM unnest($1::uuid[], $2::int[], $3::text[], $4::timestamptz[], $5::int[], $6::text[], $7::text[],
		              $8::bytea[]) AS i(id, attempts, status, next_try, last_status, error, content_type, payload)
		 WHERE c.id = i.id AND c.attempts = i.attempts AND c.lease_owner = $10 AND c.status = 'pending'`,
		ids, attempts, statuses, nexts, lastStatuses, errs, types, payloads, now, owner)
	if err != nil {
		return 0, fmt.Errorf("finish run callbacks: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// RunCallbackBacklog is the callbacks not delivered: pending (and the oldest one's
// creation), and failed (given up, kept until pruned).
type RunCallbackBacklog struct {
	Pending       int64
	Failed        int64
	OldestPending *time.Time
}

// RunCallbackCounts reads the callbacks' backlog.
func RunCallbackCounts(ctx context.Context, db DB) (RunCallbackBacklog, error) {
	var b RunCallbackBacklog
	err := db.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status = 'pending'), count(*) FILTER (WHERE status = 'failed'),
		    min(created_at) FILTER (WHERE status = 'pending')
		  FROM run_callbacks WHERE status <> 'delivered'`).Scan(&b.Pending, &b.Failed, &b.OldestPending)
	if err != nil {
		return b, fmt.Errorf("run callback counts: %w", err)
	}
	return b, nil
}

// GetRunCallback reads the callback of run id: ErrNotFound when it has none (yet).
func GetRunCallback(ctx context.Context, db DB, submissionID string) (*RunCallback, error) {
	var c RunCallback
	if err := scanRunCallback(db.QueryRow(ctx, `SELECT `+runCallbackColumns+` FROM run_callbacks c
		WHERE c.submission_id = $1::text::uuid`, submissionID), &c); err != nil {
		return nil, translate(err, "get run callback")
	}
	return &c, nil
}

// PruneRunCallbacks deletes up to limit callbacks that ended (delivered or failed)
// before before.
func PruneRunCallbacks(ctx context.Context, db DB, before time.Time, limit int) (int64, error) {
	tag, err := db.Exec(ctx, `DELETE FROM run_callbacks WHERE id IN (
		SELECT id FROM run_callbacks WHERE status <> 'pending' AND created_at < $1 ORDER BY created_at LIMIT $2)`,
		before, limit)
	if err != nil {
		return 0, fmt.Errorf("prune run callbacks: %w", err)
	}
	return tag.RowsAffected(), nil
}
