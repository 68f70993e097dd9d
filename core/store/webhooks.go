package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Webhook endpoints (00008_webhooks.sql): where the dispatcher pushes the results feed.
// An endpoint receives the events after its start cursor — the feed's head when it was
// created or last enabled — of the types it asked for, about submissions carrying its
// metadata.

// WebhookEndpoint is a registered endpoint. Secret and PreviousSecret are read for
// signing; the API shows a secret only when it is made.
type WebhookEndpoint struct {
	ID             string
	URL            string
	EventTypes     []string          // empty: every type
	Metadata       map[string]string // the submission must carry each; empty: every one
	Secret         string
	PreviousSecret string
	PreviousUntil  *time.Time
	Enabled        bool
	DisabledReason string
	DisabledAt     *time.Time
	FailingSince   *time.Time
	LastError      string
	LastErrorAt    *time.Time
	Start          Cursor
	CreatedAt      time.Time
	CreatedBy      string
}

// Wants reports whether the endpoint receives e: after its start, of a type it asked
// for, about a submission with its metadata (eventMeta, the event's). A problem version
// carries no metadata, so an endpoint with a metadata filter never receives one — as
// the feed's meta.KEY=VALUE filters.
func (ep *WebhookEndpoint) Wants(e FeedEvent, eventMeta map[string]string) bool {
	if !ep.Start.Less(e.Cursor) {
		return false
	}
	if len(ep.EventTypes) > 0 {
		found := false
		for _, t := range ep.EventTypes {
			found = found || t == e.Type
		}
		if !found {
			return false
		}
	}
	for k, v := range ep.Metadata {
		if got, ok := eventMeta[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// Signing is the secrets a try at now is signed with: the endpoint's secret, and its
// previous one while the rotation's grace lasts.
func (ep *WebhookEndpoint) Signing(now time.Time) []string {
	return signingSecrets(ep.Secret, ep.PreviousSecret, ep.PreviousUntil, now)
}

func signingSecrets(secret, previous string, previousUntil *time.Time, now time.Time) []string {
	out := []string{secret}
	if previous != "" && previousUntil != nil && now.Before(*previousUntil) {
		out = append(out, previous)
	}
	return out
}

const endpointColumns = `e.id::text, e.url, e.event_types, e.metadata, e.secret, e.previous_secret, e.previous_until,
	e.enabled, e.disabled_reason, e.disabled_at, e.failing_since, e.last_error, e.last_error_at,
	e.start_txid::text, e.start_id, e.created_at, e.created_by`

func scanEndpoint(row pgx.Row, ep *WebhookEndpoint) error { return scanEndpointAnd(row, ep) }

// scanEndpointAnd reads endpointColumns into ep, then the row's further columns (a stats
// query's) into extra.
func scanEndpointAnd(row pgx.Row, ep *WebhookEndpoint, extra ...any) error {
	var meta []byte
	var startTx string
	dest := append([]any{&ep.ID, &ep.URL, &ep.EventTypes, &meta, &ep.Secret, &ep.PreviousSecret, &ep.PreviousUntil,
		&ep.Enabled, &ep.DisabledReason, &ep.DisabledAt, &ep.FailingSince, &ep.LastError, &ep.LastErrorAt,
		&startTx, &ep.Start.ID, &ep.CreatedAt, &ep.CreatedBy}, extra...)
	if err := row.Scan(dest...); err != nil {
		return err
	}
	tx, err := strconv.ParseUint(startTx, 10, 64)
	if err != nil {
		return err
	}
	ep.Start.TxID = tx
	if ep.EventTypes == nil {
		ep.EventTypes = []string{}
	}
	return json.Unmarshal(meta, &ep.Metadata)
}

// NewWebhookEndpoint is an endpoint to register.
type NewWebhookEndpoint struct {
	URL        string
	EventTypes []string
	Metadata   map[string]string
	Secret     string
	CreatedBy  string
	Now        time.Time
}

// CreateWebhookEndpoint registers an endpoint, enabled, starting at the feed's head.
func CreateWebhookEndpoint(ctx context.Context, db DB, n NewWebhookEndpoint) (*WebhookEndpoint, error) {
	meta := n.Metadata
	if meta == nil {
		meta = map[string]string{}
	}
	metaJSON, err := jsonValue(meta)
	if err != nil {
		return nil, fmt.Errorf("create webhook endpoint: %w", err)
	}
	types := n.EventTypes
	if types == nil {
		types = []string{}
	}
	var ep *WebhookEndpoint
	err = InTx(ctx, db, func(tx pgx.Tx) error {
		start, err := webhookStart(ctx, tx)
		if err != nil {
			return err
		}
		id, err := uuid.NewV7()
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO webhook_endpoints (id, url, event_types, metadata, secret, start_txid,
			start_id, created_at, created_by) VALUES ($1, $2, $3, $4, $5, $6::text::xid8, $7, $8, $9)`,
			id, Text(n.URL), types, metaJSON, n.Secret, strconv.FormatUint(start.TxID, 10), start.ID, n.Now,
			Text(n.CreatedBy)); err != nil {
			return err
		}
		ep, err = GetWebhookEndpoint(ctx, tx, id.String())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create webhook endpoint: %w", err)
	}
	return ep, nil
}

// webhookStart is where an endpoint created or enabled now starts: the feed's head, and
// never before the fan-out's cursor, which it locks until the caller's transaction ends.
// A fan-out running meanwhile either committed before (its cursor is the start, so the
// endpoint gets everything after it) or waits and sees the endpoint: no event falls
// between the two.
func webhookStart(ctx context.Context, tx pgx.Tx) (Cursor, error) {
	var fanTx string
	var fanID int64
	if err := tx.QueryRow(ctx, `SELECT txid::text, id FROM webhook_fanout FOR UPDATE`).Scan(&fanTx, &fanID); err != nil {
		return Cursor{}, fmt.Errorf("lock webhook fan-out: %w", err)
	}
	t, err := strconv.ParseUint(fanTx, 10, 64)
	if err != nil {
		return Cursor{}, err
	}
	fan := Cursor{TxID: t, ID: fanID}
	b, err := ReadFeedBounds(ctx, tx)
	if err != nil {
		return Cursor{}, err
	}
	if b.Head.Less(fan) {
		return fan, nil
	}
	return b.Head, nil
}

// GetWebhookEndpoint reads one endpoint; ErrNotFound when there is none (or id is not a
// uuid).
func GetWebhookEndpoint(ctx context.Context, db DB, id string) (*WebhookEndpoint, error) {
	if _, err := uuid.Parse(id); err != nil {
		return nil, fmt.Errorf("webhook endpoint %q: %w", clip(id, 40), ErrNotFound)
	}
	var ep WebhookEndpoint
	err := scanEndpoint(db.QueryRow(ctx, `SELECT `+endpointColumns+` FROM webhook_endpoints e WHERE e.id = $1`, id), &ep)
	if err != nil {
		return nil, translate(err, "webhook endpoint")
	}
	return &ep, nil
}

// EnabledWebhookEndpoints lists the enabled endpoints: the fan-out's targets.
func EnabledWebhookEndpoints(ctx context.Context, db DB) ([]WebhookEndpoint, error) {
	return queryAll(ctx, db, "enabled webhook endpoints", scanEndpoint,
		`SELECT `+endpointColumns+` FROM webhook_endpoints e WHERE e.enabled ORDER BY e.created_at, e.id`)
}

// AnyWebhookEndpointEnabled reports whether an endpoint is enabled: without one, the
// fan-out has nothing to do and writes nothing.
func AnyWebhookEndpointEnabled(ctx context.Context, db DB) (bool, error) {
	var any bool
	if err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE enabled)`).Scan(&any); err != nil {
		return false, fmt.Errorf("webhook endpoints: %w", err)
	}
	return any, nil
}

// WebhookEndpointStats is an endpoint with what its deliveries look like.
type WebhookEndpointStats struct {
	WebhookEndpoint
	Pending  int // waiting to be delivered (first try or retry)
	Retrying int // pending after at least one failed try
	// Delivered counts the deliveries delivered in the last DeliveredWindow.
	Delivered     int
	Failed        int // given up, kept until redelivered or the endpoint is removed
	OldestPending *time.Time
	LastDelivered *time.Time
}

// DeliveredWindow is how far back WebhookEndpointStats.Delivered counts: a busy
// endpoint's whole history would be a scan of every row on every dashboard refresh.
const DeliveredWindow = 24 * time.Hour

// ListWebhookEndpoints lists every endpoint, oldest first, with its statistics as of now.
func ListWebhookEndpoints(ctx context.Context, db DB, now time.Time) ([]WebhookEndpointStats, error) {
	return queryAll(ctx, db, "list webhook endpoints", scanEndpointStats, endpointStatsQuery+` ORDER BY e.created_at, e.id`,
		now.Add(-DeliveredWindow))
}

// GetWebhookEndpointStats reads one endpoint with its statistics as of now; ErrNotFound
// when there is none.
func GetWebhookEndpointStats(ctx context.Context, db DB, id string, now time.Time) (*WebhookEndpointStats, error) {
	if _, err := uuid.Parse(id); err != nil {
		return nil, fmt.Errorf("webhook endpoint %q: %w", clip(id, 40), ErrNotFound)
	}
	var s WebhookEndpointStats
	if err := scanEndpointStats(db.QueryRow(ctx, endpointStatsQuery+` WHERE e.id = $2`, now.Add(-DeliveredWindow), id), &s); err != nil {
		return nil, translate(err, "webhook endpoint")
	}
	return &s, nil
}

// endpointStatsQuery reads endpoints with their statistics; $1 is when the delivered
// count starts.
const endpointStatsQuery = `SELECT ` + endpointColumns + `,
	       p.n, p.retrying, p.oldest, d.n, d.last, f.n
	  FROM webhook_endpoints e
	  CROSS JOIN LATERAL (SELECT count(*)::int AS n, (count(*) FILTER (WHERE attempts > 0 AND lease_owner = ''))::int AS retrying,
	                             min(created_at) AS oldest
	                        FROM webhook_deliveries WHERE endpoint_id = e.id AND status = 'pending') p
	  CROSS JOIN LATERAL (SELECT count(*)::int AS n, max(delivered_at) AS last FROM webhook_deliveries
	                       WHERE endpoint_id = e.id AND created_at > $1 AND status = 'delivered') d
	  CROSS JOIN LATERAL (SELECT count(*)::int AS n FROM webhook_deliveries
	                       WHERE endpoint_id = e.id AND status = 'failed') f`

func scanEndpointStats(row pgx.Row, s *WebhookEndpointStats) error {
	return scanEndpointAnd(row, &s.WebhookEndpoint, &s.Pending, &s.Retrying, &s.OldestPending, &s.Delivered, &s.LastDelivered, &s.Failed)
}

// DeleteWebhookEndpoint removes an endpoint and its deliveries, and returns how many of
// them were not delivered (pending or failed). ErrNotFound when there is none.
func DeleteWebhookEndpoint(ctx context.Context, db DB, id string) (int, error) {
	if _, err := uuid.Parse(id); err != nil {
		return 0, fmt.Errorf("delete webhook endpoint %q: %w", clip(id, 40), ErrNotFound)
	}
	var found bool
	var pending int
	err := db.QueryRow(ctx, `WITH n AS (SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status <> 'delivered'),
		     gone AS (DELETE FROM webhook_endpoints WHERE id = $1 RETURNING id)
		SELECT EXISTS (SELECT 1 FROM gone), (SELECT n FROM n)`, id).Scan(&found, &pending)
	if err != nil {
		return 0, fmt.Errorf("delete webhook endpoint: %w", err)
	}
	if !found {
		return 0, fmt.Errorf("delete webhook endpoint %s: %w", id, ErrNotFound)
	}
	return pending, nil
}

// EnableWebhookEndpoint enables a disabled endpoint: it starts again at the feed's head
// (what happened while it was disabled is in the feed, not in its deliveries), and its
// pending deliveries are tried again at once. It reports whether the endpoint was
// disabled; ErrNotFound when there is none.
func EnableWebhookEndpoint(ctx context.Context, db DB, id string, now time.Time) (bool, error) {
	if _, err := uuid.Parse(id); err != nil {
		return false, fmt.Errorf("enable webhook endpoint %q: %w", clip(id, 40), ErrNotFound)
	}
	var changed bool
	err := InTx(ctx, db, func(tx pgx.Tx) error {
		ep, err := GetWebhookEndpoint(ctx, tx, id)
		if err != nil {
			return err
		}
		if ep.Enabled {
			return nil
		}
		start, err := webhookStart(ctx, tx)
		if err != nil {
			return err
		}
		changed = true
		if _, err := tx.Exec(ctx, `UPDATE webhook_endpoints SET enabled = true, disabled_reason = '', disabled_at = NULL,
			failing_since = NULL, start_txid = $2::text::xid8, start_id = $3 WHERE id = $1`,
			id, strconv.FormatUint(start.TxID, 10), start.ID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET next_try = $2 WHERE endpoint_id = $1
			AND status = 'pending' AND lease_owner = ''`, id, now); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `SELECT pg_notify('oj_webhooks', '')`)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("enable webhook endpoint: %w", err)
	}
	return changed, nil
}

// DisableWebhookEndpoint disables an enabled endpoint with reason: nothing is fanned out
// to it and its pending deliveries wait (EnableWebhookEndpoint resumes them). It
// reports whether the endpoint was enabled; ErrNotFound when there is none.
func DisableWebhookEndpoint(ctx context.Context, db DB, id, reason string, now time.Time) (bool, error) {
	if _, err := uuid.Parse(id); err != nil {
		return false, fmt.Errorf("disable webhook endpoint %q: %w", clip(id, 40), ErrNotFound)
	}
	var exists, changed bool
	err := db.QueryRow(ctx, `WITH ep AS (SELECT id, enabled FROM webhook_endpoints WHERE id = $1 FOR UPDATE),
		     upd AS (UPDATE webhook_endpoints w SET enabled = false, disabled_reason = $2, disabled_at = $3
		               FROM ep WHERE w.id = ep.id AND ep.enabled RETURNING w.id)
		SELECT EXISTS (SELECT 1 FROM ep), EXISTS (SELECT 1 FROM upd)`, id, Text(reason), now).Scan(&exists, &changed)
	if err != nil {
		return false, fmt.Errorf("disable webhook endpoint: %w", err)
	}
	if !exists {
		return false, fmt.Errorf("disable webhook endpoint %s: %w", id, ErrNotFound)
	}
	return changed, nil
}

// RotateWebhookSecret gives an endpoint a new secret; the old one keeps signing beside
// it (a second signature) for grace, so a receiver can switch without failing a
// delivery. ErrNotFound when there is no such endpoint.
func RotateWebhookSecret(ctx context.Context, db DB, id, secret string, grace time.Duration, now time.Time) error {
	if _, err := uuid.Parse(id); err != nil {
		return fmt.Errorf("rotate webhook secret %q: %w", clip(id, 40), ErrNotFound)
	}
	tag, err := db.Exec(ctx, `UPDATE webhook_endpoints SET previous_secret = secret, previous_until = $3, secret = $2
		WHERE id = $1`, id, secret, now.Add(grace))
	if err != nil {
		return fmt.Errorf("rotate webhook secret: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("rotate webhook secret %s: %w", id, ErrNotFound)
	}
	return nil
}
