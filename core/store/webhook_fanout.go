package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// The webhook fan-out's cursor (00011_webhook_inline.sql): leased by one dispatcher at a
// time, which tries a page's deliveries and then writes them and moves the cursor in
// one transaction (CommitWebhookFanout).

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
