package store

import (
	"context"
	"fmt"
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
