package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Webhook deliveries (00008_webhooks.sql, 00011_webhook_inline.sql): one row per event
// and endpoint, written by the fan-out after its first try in the transaction that moves
// its cursor (CommitWebhookFanout); one not delivered then is claimed by the
// dispatcher's senders under a lease and finished with a fenced update. Times are the
// caller's clock.

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// WebhookDelivery is one delivery of one event to one endpoint. ID is its webhook-id.
type WebhookDelivery struct {
	ID          string
	EndpointID  string
	EventID     string // the feed cursor; empty for a test delivery
	EventType   string
	Status      string
	Attempts    int
	NextTry     time.Time
	ExpiresAt   time.Time
	LeaseOwner  string
	LeaseUntil  *time.Time
	LastStatus  *int
	LastError   string
	LastTry     *time.Time
	CreatedAt   time.Time
	DeliveredAt *time.Time
	Payload     []byte // read by the claim only
}

const deliveryColumns = `d.id::text, d.endpoint_id::text, coalesce(d.event_id, ''), d.event_type, d.status, d.attempts,
	d.next_try, d.expires_at, d.lease_owner, d.lease_until, d.last_status, d.last_error, d.last_try, d.created_at,
	d.delivered_at`

func scanDelivery(row pgx.Row, d *WebhookDelivery, extra ...any) error {
	return row.Scan(append([]any{&d.ID, &d.EndpointID, &d.EventID, &d.EventType, &d.Status, &d.Attempts, &d.NextTry,
		&d.ExpiresAt, &d.LeaseOwner, &d.LeaseUntil, &d.LastStatus, &d.LastError, &d.LastTry, &d.CreatedAt,
		&d.DeliveredAt}, extra...)...)
}

// NewWebhookDelivery is a delivery for the fan-out to write.
type NewWebhookDelivery struct {
	EndpointID string
	EventID    string // empty: a test delivery
	EventType  string
	Payload    []byte
}

// InsertWebhookDeliveries writes deliveries due at now, tried until now+window. A
// delivery of an event an endpoint already has is skipped (the fan-out never sends one
// event twice to one endpoint). It returns the ids of the deliveries written, in order,
// "" for one skipped.
func InsertWebhookDeliveries(ctx context.Context, db DB, ds []NewWebhookDelivery, now time.Time, window time.Duration) ([]string, error) {
	if len(ds) == 0 {
		return nil, nil
	}
	ids := make([]string, len(ds))
	endpoints := make([]string, len(ds))
	events := make([]*string, len(ds))
	types := make([]string, len(ds))
	payloads := make([]string, len(ds))
	for i, d := range ds {
		id, err := uuid.NewV7()
		if err != nil {
			return nil, fmt.Errorf("insert webhook deliveries: %w", err)
		}
		ids[i], endpoints[i], types[i], payloads[i] = id.String(), d.EndpointID, d.EventType, string(d.Payload)
		if d.EventID != "" {
			events[i] = &ds[i].EventID
		}
	}
	rows, err := db.Query(ctx, `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, payload, next_try,
		    expires_at, created_at)
		SELECT i.id, i.endpoint_id, i.event_id, i.event_type, i.payload::json, $6::timestamptz,
		       $6::timestamptz + $7::bigint * interval '1 microsecond', $6::timestamptz
		  FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[]) AS i(id, endpoint_id, event_id, event_type, payload)
		ON CONFLICT (endpoint_id, event_id) DO NOTHING RETURNING id::text`,
		ids, endpoints, events, types, payloads, now, window.Microseconds())
	if err != nil {
		return nil, fmt.Errorf("insert webhook deliveries: %w", err)
	}
	return writtenOf(rows, ids)
}

// writtenOf reads the ids an INSERT … ON CONFLICT DO NOTHING RETURNING id wrote, and
// returns ids with "" in place of each one it skipped.
func writtenOf(rows pgx.Rows, ids []string) ([]string, error) {
	got, err := collectStrings(rows, "insert webhook deliveries")
	if err != nil {
		return nil, err
	}
	done := make(map[string]bool, len(got))
	for _, id := range got {
		done[id] = true
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		if done[id] {
			out[i] = id
		}
	}
	return out, nil
}

// ErrFanoutLeaseLost is a fan-out's commit after its lease on the cursor ended and
// another dispatcher took the page over: the other's deliveries count, not these.
var ErrFanoutLeaseLost = errors.New("the fan-out's lease on its cursor was lost")

// LeaseWebhookFanout takes the fan-out's cursor for owner until now+lease, in the
// caller's transaction (whose row lock an endpoint being created or enabled waits for),
// and returns it. ok is false when another dispatcher holds it: its lease has not ended,
// or its transaction has the row.
func LeaseWebhookFanout(ctx context.Context, tx pgx.Tx, owner string, now time.Time, lease time.Duration) (c Cursor, ok bool, err error) {
	var t string
	err = tx.QueryRow(ctx, `WITH f AS (
		    SELECT one FROM webhook_fanout WHERE lease_owner = '' OR lease_owner = $1 OR lease_until <= $2
		       FOR UPDATE SKIP LOCKED)
		UPDATE webhook_fanout w SET lease_owner = $1, lease_until = $3 FROM f WHERE w.one = f.one
		RETURNING w.txid::text, w.id`, owner, now, now.Add(lease)).Scan(&t, &c.ID)
	switch {
	case err == pgx.ErrNoRows:
		return Cursor{}, false, nil
	case err != nil:
		return Cursor{}, false, fmt.Errorf("lease webhook fan-out: %w", err)
	}
	if c.TxID, err = strconv.ParseUint(t, 10, 64); err != nil {
		return Cursor{}, false, fmt.Errorf("lease webhook fan-out: %w", err)
	}
	return c, true, nil
}

// ReleaseWebhookFanout ends owner's lease on the fan-out's cursor, if it holds it: a
// dispatcher that stops lets the next one go on at once.
func ReleaseWebhookFanout(ctx context.Context, db DB, owner string) error {
	if _, err := db.Exec(ctx, `UPDATE webhook_fanout SET lease_owner = '', lease_until = NULL WHERE lease_owner = $1`,
		owner); err != nil {
		return fmt.Errorf("release webhook fan-out: %w", err)
	}
	return nil
}

// SetWebhookFanout moves the fan-out's cursor, leased and locked by LeaseWebhookFanout in
// tx, to c.
func SetWebhookFanout(ctx context.Context, tx pgx.Tx, c Cursor) error {
	_, err := tx.Exec(ctx, `UPDATE webhook_fanout SET txid = $1::text::xid8, id = $2`, strconv.FormatUint(c.TxID, 10), c.ID)
	if err != nil {
		return fmt.Errorf("move webhook fan-out: %w", err)
	}
	return nil
}

// ClaimedDelivery is a delivery claimed for one try, with what the try needs.
type ClaimedDelivery struct {
	WebhookDelivery
	URL string
	// Secrets sign the try: the endpoint's secret, and its previous one while the
	// rotation's grace lasts.
	Secrets []string
}

// ClaimWebhookDeliveries claims up to limit due deliveries of enabled endpoints, oldest
// due first, skipping rows another dispatcher is claiming: each gets attempts+1 (its
// fence), owner and a lease until now+lease. A claimed row is due again when the lease
// ends, so a dispatcher that dies mid-try leaves it to the next claim.
func ClaimWebhookDeliveries(ctx context.Context, db DB, owner string, now time.Time, lease time.Duration, limit int) ([]ClaimedDelivery, error) {
	until := now.Add(lease)
	scan := func(row pgx.Row, c *ClaimedDelivery) error {
		var payload, secret, previous string
		var previousUntil *time.Time
		if err := scanDelivery(row, &c.WebhookDelivery, &payload, &c.URL, &secret, &previous, &previousUntil); err != nil {
			return err
		}
		c.Payload = []byte(payload)
		c.Secrets = signingSecrets(secret, previous, previousUntil, now)
		return nil
	}
	return queryAll(ctx, db, "claim webhook deliveries", scan, `
		WITH due AS (
		    SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
		     WHERE d.status = 'pending' AND d.next_try <= $1 AND e.enabled
		     ORDER BY d.next_try LIMIT $4 FOR UPDATE OF d SKIP LOCKED)
		UPDATE webhook_deliveries d SET attempts = d.attempts + 1, lease_owner = $2, lease_until = $3, next_try = $3
		  FROM due, webhook_endpoints e WHERE d.id = due.id AND e.id = d.endpoint_id
		RETURNING `+deliveryColumns+`, d.payload::text, e.url, e.secret, e.previous_secret, e.previous_until`,
		now, owner, until, limit)
}

// Outcomes of one try.
const (
	TryDelivered = "delivered" // a 2xx
	TryRetry     = "retry"     // failed; tried again at NextTry
	TryFailed    = "failed"    // failed, and the delivery's window is over: given up, kept
	TryGone      = "gone"      // 410: given up, and the endpoint disabled
)

// WebhookTry is the result of one try of a claimed delivery.
type WebhookTry struct {
	ID         string
	EndpointID string
	Attempt    int // the claim's attempts: the fence
	Outcome    string
	Status     int // the HTTP status; 0 when there was no answer
	Error      string
	NextTry    time.Time // TryRetry
}

// ReasonGone is the disabled reason of an endpoint that answered 410.
const ReasonGone = "answered 410 Gone"

// DisabledEndpoint is an endpoint a try disabled, and why.
type DisabledEndpoint struct {
	ID     string
	URL    string
	Reason string
}

// FinishWebhookTries records tries by owner at now, in one transaction. A try whose row
// is no longer owner's attempt (its lease ended and another dispatcher claimed it) is
// not recorded: the other try's result will be. A success clears its endpoint's
// failure; a failure records it, and an endpoint that has failed for window (every try
// since failing_since) or answered 410 is disabled. It returns how many tries were
// recorded and the endpoints it disabled.
func FinishWebhookTries(ctx context.Context, db DB, owner string, now time.Time, window time.Duration,
	tries []WebhookTry) (recorded int, disabled []DisabledEndpoint, err error) {
	err = InTx(ctx, db, func(tx pgx.Tx) error {
		recorded, disabled = 0, nil
		// The endpoints first, in one order: a removal locks its endpoint before its
		// deliveries (the cascade), and so does every recording, so neither they nor two
		// dispatchers recording at once wait on each other in a circle. NO KEY UPDATE
		// leaves the fan-out's inserts (a foreign key's KEY SHARE) free to go on.
		eps := make([]string, 0, len(tries))
		for _, t := range tries {
			eps = append(eps, t.EndpointID)
		}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM webhook_endpoints WHERE id = ANY($1::uuid[]) ORDER BY id
			FOR NO KEY UPDATE`, eps); err != nil {
			return err
		}
		var okIDs []string
		var okAttempts []int
		var okStatus []int
		for _, t := range tries {
			if t.Outcome == TryDelivered {
				okIDs = append(okIDs, t.ID)
				okAttempts, okStatus = append(okAttempts, t.Attempt), append(okStatus, t.Status)
			}
		}
		if len(okIDs) > 0 {
			rows, err := tx.Query(ctx, `UPDATE webhook_deliveries d SET status = 'delivered', delivered_at = $5,
				    last_status = i.status, last_error = '', last_try = $5, lease_owner = '', lease_until = NULL
				  FROM unnest($1::uuid[], $2::int[], $3::int[]) AS i(id, attempts, status)
				 WHERE d.id = i.id AND d.attempts = i.attempts AND d.lease_owner = $4 AND d.status = 'pending'
				RETURNING d.endpoint_id::text`, okIDs, okAttempts, okStatus, owner, now)
			if err != nil {
				return err
			}
			eps, err := collectStrings(rows, "finish webhook tries")
			if err != nil {
				return err
			}
			recorded += len(eps)
			if len(eps) > 0 {
				if _, err := tx.Exec(ctx, `UPDATE webhook_endpoints SET failing_since = NULL
					WHERE id = ANY($1::uuid[]) AND failing_since IS NOT NULL`, eps); err != nil {
					return err
				}
			}
		}
		for _, t := range tries {
			if t.Outcome == TryDelivered {
				continue
			}
			ok, gone, err := finishFailedTry(ctx, tx, owner, now, window, t)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			recorded++
			if gone != nil {
				disabled = append(disabled, *gone)
			}
		}
		return nil
	})
	if err != nil {
		return 0, nil, fmt.Errorf("finish webhook tries: %w", err)
	}
	return recorded, disabled, nil
}

// finishFailedTry records one failed try (fenced) and its endpoint's failure; it
// disables the endpoint on a 410 or when it has failed for window.
func finishFailedTry(ctx context.Context, tx pgx.Tx, owner string, now time.Time, window time.Duration,
	t WebhookTry) (recorded bool, disabled *DisabledEndpoint, err error) {
	status, next := DeliveryPending, t.NextTry
	if t.Outcome != TryRetry {
		status, next = DeliveryFailed, now
	}
	var lastStatus *int
	if t.Status != 0 {
		lastStatus = &t.Status
	}
	tag, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET status = $5, next_try = $6, last_status = $7, last_error = $8,
		    last_try = $9, lease_owner = '', lease_until = NULL
		 WHERE id = $1 AND attempts = $2 AND lease_owner = $3 AND status = 'pending' AND endpoint_id = $4`,
		t.ID, t.Attempt, owner, t.EndpointID, status, next, lastStatus, Text(t.Error), now)
	if err != nil || tag.RowsAffected() == 0 {
		return false, nil, err
	}
	disabled, err = endpointFailed(ctx, tx, now, window, t)
	return err == nil, disabled, err
}

// endpointFailed records a failed try's endpoint failure; it disables the endpoint on a
// 410 or when it has failed for window, and returns it then.
func endpointFailed(ctx context.Context, tx pgx.Tx, now time.Time, window time.Duration, t WebhookTry) (*DisabledEndpoint, error) {
	var url string
	var failingSince time.Time
	var enabled bool
	err := tx.QueryRow(ctx, `UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, $2), last_error = $3,
		    last_error_at = $2 WHERE id = $1 RETURNING url, failing_since, enabled`, t.EndpointID, now, Text(t.Error)).
		Scan(&url, &failingSince, &enabled)
	if err != nil {
		return nil, translate(err, "record endpoint failure")
	}
	reason := ""
	switch {
	case !enabled:
	case t.Outcome == TryGone:
		reason = ReasonGone
	case !now.Before(failingSince.Add(window)):
		reason = fmt.Sprintf("every try failed for %s (since %s): %s", window, failingSince.UTC().Format(time.RFC3339),
			clip(t.Error, 200))
	}
	if reason == "" {
		return nil, nil
	}
	changed, err := DisableWebhookEndpoint(ctx, tx, t.EndpointID, reason, now)
	if err != nil || !changed {
		return nil, err
	}
	return &DisabledEndpoint{ID: t.EndpointID, URL: url, Reason: reason}, nil
}

// FannedDelivery is a delivery of a fanned-out page with what its first try, made
// before the page is written, came to.
type FannedDelivery struct {
	NewWebhookDelivery
	ID string // its webhook-id, the same its try was sent under
	// Try is nil for a delivery not tried (written pending, due at once: the senders
	// claim it); with an empty Outcome, a try still in flight (written leased to the
	// fan-out's dispatcher as attempt 1 until TriedAt plus the delivery lease, and
	// recorded by FinishWebhookTries when it ends); otherwise the try's result.
	Try     *WebhookTry
	TriedAt time.Time
}

// CommitWebhookFanout writes a fanned-out page's deliveries (each one once: an event an
// endpoint already has, or an endpoint removed meanwhile, is skipped), records their
// tries' outcomes on their endpoints as FinishWebhookTries does, and moves the fan-out's
// cursor from from to next — all only while owner still holds the cursor's lease at
// from (ErrFanoutLeaseLost otherwise). It renews the lease until now+fanoutLease and
// returns the ids written ("" for one skipped) and the endpoints disabled.
func CommitWebhookFanout(ctx context.Context, db DB, owner string, from, next Cursor, ds []FannedDelivery, now time.Time,
	window, lease, fanoutLease time.Duration) (written []string, disabled []DisabledEndpoint, err error) {
	err = InTx(ctx, db, func(tx pgx.Tx) error {
		written, disabled = nil, nil
		var t, holder string
		var c Cursor
		if err := tx.QueryRow(ctx, `SELECT txid::text, id, lease_owner FROM webhook_fanout FOR UPDATE`).
			Scan(&t, &c.ID, &holder); err != nil {
			return err
		}
		var err error
		if c.TxID, err = strconv.ParseUint(t, 10, 64); err != nil {
			return err
		}
		if holder != owner || c != from {
			return ErrFanoutLeaseLost
		}
		// The endpoints first, in one order, as FinishWebhookTries does.
		eps := make([]string, 0, len(ds))
		for _, d := range ds {
			if d.Try != nil && d.Try.Outcome != TryDelivered && d.Try.Outcome != "" {
				eps = append(eps, d.EndpointID)
			}
		}
		if len(eps) > 0 {
			if _, err := tx.Exec(ctx, `SELECT 1 FROM webhook_endpoints WHERE id = ANY($1::uuid[]) ORDER BY id
				FOR NO KEY UPDATE`, eps); err != nil {
				return err
			}
		}
		if written, err = insertFanned(ctx, tx, owner, ds, now, window, lease); err != nil {
			return err
		}
		// Successes first, then failures, as FinishWebhookTries does: an endpoint with
		// both in one page is failing.
		var delivered []string
		for i, d := range ds {
			if written[i] != "" && d.Try != nil && d.Try.Outcome == TryDelivered {
				delivered = append(delivered, d.EndpointID)
			}
		}
		if len(delivered) > 0 {
			if _, err := tx.Exec(ctx, `UPDATE webhook_endpoints SET failing_since = NULL
				WHERE id = ANY($1::uuid[]) AND failing_since IS NOT NULL`, delivered); err != nil {
				return err
			}
		}
		for i, d := range ds {
			if written[i] == "" || d.Try == nil || d.Try.Outcome == "" || d.Try.Outcome == TryDelivered {
				continue
			}
			try := *d.Try
			try.ID, try.EndpointID = d.ID, d.EndpointID
			gone, err := endpointFailed(ctx, tx, now, window, try)
			if err != nil {
				return err
			}
			if gone != nil {
				disabled = append(disabled, *gone)
			}
		}
		_, err = tx.Exec(ctx, `UPDATE webhook_fanout SET txid = $1::text::xid8, id = $2, lease_until = $3`,
			strconv.FormatUint(next.TxID, 10), next.ID, now.Add(fanoutLease))
		return err
	})
	if err != nil {
		if errors.Is(err, ErrFanoutLeaseLost) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("commit webhook fan-out: %w", err)
	}
	return written, disabled, nil
}

// insertFanned writes a page's deliveries in one statement, each in the state its try
// left it; see FannedDelivery.
func insertFanned(ctx context.Context, tx pgx.Tx, owner string, ds []FannedDelivery, now time.Time, window,
	lease time.Duration) ([]string, error) {
	n := len(ds)
	var (
		ids, endpoints, types, payloads, statuses, owners, errs = make([]string, n), make([]string, n),
			make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		events                          = make([]*string, n)
		attempts                        = make([]int, n)
		nextTries                       = make([]time.Time, n)
		leases, lastTries, deliveredAts = make([]*time.Time, n), make([]*time.Time, n), make([]*time.Time, n)
		lastStatuses                    = make([]*int, n)
	)
	for i := range ds {
		d := &ds[i]
		ids[i], endpoints[i], types[i], payloads[i] = d.ID, d.EndpointID, d.EventType, string(d.Payload)
		if d.EventID != "" {
			events[i] = &d.EventID
		}
		statuses[i], nextTries[i] = DeliveryPending, now
		if d.Try == nil {
			continue
		}
		attempts[i] = 1
		if d.Try.Outcome == "" { // in flight
			until := d.TriedAt.Add(lease)
			owners[i], leases[i], nextTries[i] = owner, &until, until
			continue
		}
		lastTries[i], errs[i] = &now, Text(d.Try.Error)
		if d.Try.Status != 0 {
			lastStatuses[i] = &d.Try.Status
		}
		switch d.Try.Outcome {
		case TryDelivered:
			statuses[i], deliveredAts[i] = DeliveryDelivered, &now
		case TryRetry:
			nextTries[i] = d.Try.NextTry
		default:
			statuses[i] = DeliveryFailed
		}
	}
	rows, err := tx.Query(ctx, `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status,
		    attempts, next_try, expires_at, lease_owner, lease_until, last_status, last_error, last_try, created_at,
		    delivered_at)
		SELECT i.id, i.endpoint_id, i.event_id, i.event_type, i.payload::json, i.status, i.attempts, i.next_try,
		       $14::timestamptz + $15::bigint * interval '1 microsecond', i.lease_owner, i.lease_until, i.last_status,
		       i.last_error, i.last_try, $14::timestamptz, i.delivered_at
		  FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[],
		              $8::timestamptz[], $9::text[], $10::timestamptz[], $11::int[], $12::text[], $13::timestamptz[],
		              $16::timestamptz[])
		       AS i(id, endpoint_id, event_id, event_type, payload, status, attempts, next_try, lease_owner, lease_until,
		            last_status, last_error, last_try, delivered_at)
		  JOIN webhook_endpoints e ON e.id = i.endpoint_id
		ON CONFLICT (endpoint_id, event_id) DO NOTHING RETURNING id::text`,
		ids, endpoints, events, types, payloads, statuses, attempts, nextTries, owners, leases, lastStatuses, errs,
		lastTries, now, window.Microseconds(), deliveredAts)
	if err != nil {
		return nil, err
	}
	return writtenOf(rows, ids)
}

// DeliveryID is the webhook-id of event's delivery to endpoint: the same each time it
// is computed, so that a page sent again after its dispatcher died reaches the receiver
// under the ids it was first sent with.
func DeliveryID(endpoint, event string) string {
	return uuid.NewSHA1(deliveryNamespace, []byte(endpoint+"/"+event)).String()
}

// deliveryNamespace is the UUID namespace of DeliveryID (a fixed random UUID).
var deliveryNamespace = uuid.MustParse("6f6a7768-6b2d-4c1e-9a43-0d5e8b1f2c71")

// ListWebhookDeliveries returns an endpoint's deliveries, newest first, up to limit,
// those of status only when status is not empty, after the delivery before (keyset: ""
// for the first page).
func ListWebhookDeliveries(ctx context.Context, db DB, endpointID, status string, before string, limit int) ([]WebhookDelivery, error) {
	if _, err := uuid.Parse(endpointID); err != nil {
		return nil, fmt.Errorf("list webhook deliveries: %w", ErrNotFound)
	}
	var beforeID *string
	if before != "" {
		if _, err := uuid.Parse(before); err != nil {
			return nil, fmt.Errorf("list webhook deliveries: cursor: %w", ErrBadCursor)
		}
		beforeID = &before
	}
	return queryAll(ctx, db, "list webhook deliveries", func(row pgx.Row, d *WebhookDelivery) error { return scanDelivery(row, d) },
		`SELECT `+deliveryColumns+` FROM webhook_deliveries d
		  WHERE d.endpoint_id = $1 AND ($2 = '' OR d.status = $2)
		    AND ($3::uuid IS NULL OR (d.created_at, d.id) < (SELECT created_at, id FROM webhook_deliveries WHERE id = $3::uuid))
		  ORDER BY d.created_at DESC, d.id DESC LIMIT $4`, endpointID, status, beforeID, limit)
}

// GetWebhookDelivery reads one delivery of an endpoint, with its payload.
func GetWebhookDelivery(ctx context.Context, db DB, endpointID, id string) (*WebhookDelivery, error) {
	if _, err := uuid.Parse(endpointID); err != nil {
		return nil, fmt.Errorf("webhook delivery: %w", ErrNotFound)
	}
	if _, err := uuid.Parse(id); err != nil {
		return nil, fmt.Errorf("webhook delivery: %w", ErrNotFound)
	}
	var d WebhookDelivery
	var payload string
	err := scanDelivery(db.QueryRow(ctx, `SELECT `+deliveryColumns+`, d.payload::text FROM webhook_deliveries d
		WHERE d.endpoint_id = $1 AND d.id = $2`, endpointID, id), &d, &payload)
	if err != nil {
		return nil, translate(err, "webhook delivery")
	}
	d.Payload = []byte(payload)
	return &d, nil
}

// RedeliverWebhook makes a delivery of an endpoint pending and due at now, with a new
// window and its attempts counted from zero; the webhook-id stays. A delivery in a try
// right now is left alone (ErrConflict): its result is coming. ErrNotFound when the
// endpoint has no such delivery.
func RedeliverWebhook(ctx context.Context, db DB, endpointID, id string, now time.Time, window time.Duration) error {
	d, err := GetWebhookDelivery(ctx, db, endpointID, id)
	if err != nil {
		return fmt.Errorf("redeliver: %w", err)
	}
	if d.Status == DeliveryPending && d.LeaseOwner != "" {
		return fmt.Errorf("redeliver %s: a try is in flight: %w", id, ErrConflict)
	}
	tag, err := db.Exec(ctx, `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_try = $3::timestamptz,
		    expires_at = $3::timestamptz + $4::bigint * interval '1 microsecond', delivered_at = NULL
		 WHERE endpoint_id = $1 AND id = $2 AND lease_owner = ''`, endpointID, id, now, window.Microseconds())
	if err != nil {
		return fmt.Errorf("redeliver: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("redeliver %s: a try is in flight: %w", id, ErrConflict)
	}
	if _, err := db.Exec(ctx, `SELECT pg_notify('oj_webhooks', '')`); err != nil {
		return fmt.Errorf("redeliver: %w", err)
	}
	return nil
}

// WebhookBacklog is how many deliveries of enabled endpoints are pending and when the
// oldest of them was made (nil when none).
func WebhookBacklog(ctx context.Context, db DB) (n int, oldest *time.Time, err error) {
	err = db.QueryRow(ctx, `SELECT count(*), min(d.created_at) FROM webhook_deliveries d
		JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.status = 'pending' AND e.enabled`).Scan(&n, &oldest)
	if err != nil {
		return 0, nil, fmt.Errorf("webhook backlog: %w", err)
	}
	return n, oldest, nil
}

// PruneWebhookDeliveries deletes up to limit deliveries delivered before before. Failed
// ones are kept: only a redelivery or the endpoint's removal ends them.
func PruneWebhookDeliveries(ctx context.Context, db DB, before time.Time, limit int) (int64, error) {
	tag, err := db.Exec(ctx, `DELETE FROM webhook_deliveries WHERE id IN (
		SELECT id FROM webhook_deliveries WHERE status = 'delivered' AND created_at < $1
		ORDER BY created_at LIMIT $2)`, before, limit)
	if err != nil {
		return 0, fmt.Errorf("prune webhook deliveries: %w", err)
	}
	return tag.RowsAffected(), nil
}
