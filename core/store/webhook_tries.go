package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The senders' side of webhook deliveries: due deliveries are claimed under a lease,
// (ClaimWebhookDeliveries), and each try's result is recorded
// with a fenced update (FinishWebhookTries), on the delivery and on its endpoint.

// ClaimedDelivery is a delivery claimed for one try, with what the try needs.
type ClaimedDelivery struct {
	WebhookDelivery
	URL string
	// Secrets sign the try: the endpoint's secret, and its previous one while the
	// rotation's grace lasts.
	Secrets []string
}

// ClaimWebhookDeliveries claims up to limit due deliveries of enabled endpoints, skipping
// rows another dispatcher is claiming: each gets attempts+1 (its fence), owner and a
// lease until now+lease. A claimed row is due again when the lease ends, so a dispatcher
// that dies mid-try leaves it to the next claim.
//
// Endpoints share the senders: an endpoint with perEndpoint tries in flight already
// (leased by any dispatcher, the fan-out's own tries included) gets none, one with fewer
// gets at most the difference, and the deliveries claimed are taken round-robin across
// endpoints (each endpoint's oldest due first, then each one's second, …). So a receiver
// that never answers holds at most perEndpoint senders, for webhooks.timeout each, and
// every other endpoint's due deliveries go out meanwhile. Two dispatchers claiming at
// the same moment may each fill an endpoint's share once.
func ClaimWebhookDeliveries(ctx context.Context, db DB, owner string, now time.Time, lease time.Duration, limit,
	perEndpoint int) ([]ClaimedDelivery, error) {
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
		WITH share AS (
		    SELECT e.id, $5::int - (SELECT count(*) FROM webhook_deliveries l
		                             WHERE l.endpoint_id = e.id AND l.status = 'pending' AND l.lease_owner <> ''
		                               AND l.lease_until > $1) AS room
		      FROM webhook_endpoints e
		     WHERE e.enabled AND EXISTS (SELECT 1 FROM webhook_deliveries x
		                                  WHERE x.endpoint_id = e.id AND x.status = 'pending' AND x.next_try <= $1)
		), ranked AS (
		    SELECT c.id, c.next_try, row_number() OVER (PARTITION BY s.id ORDER BY c.next_try, c.id) AS turn
		      FROM share s CROSS JOIN LATERAL (
		           SELECT d.id, d.next_try FROM webhook_deliveries d
		            WHERE d.endpoint_id = s.id AND d.status = 'pending' AND d.next_try <= $1
		            ORDER BY d.next_try, d.id LIMIT greatest(s.room, 0)) c
		), due AS (
		    SELECT d.id FROM webhook_deliveries d JOIN ranked r ON r.id = d.id
		     ORDER BY r.turn, r.next_try, r.id LIMIT $4 FOR UPDATE OF d SKIP LOCKED)
		UPDATE webhook_deliveries d SET attempts = d.attempts + 1, lease_owner = $2, lease_until = $3, next_try = $3
		  FROM due, webhook_endpoints e WHERE d.id = due.id AND e.id = d.endpoint_id
		RETURNING `+deliveryColumns+`, d.payload::text, e.url, e.secret, e.previous_secret, e.previous_until`,
		now, owner, until, limit, perEndpoint)
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
