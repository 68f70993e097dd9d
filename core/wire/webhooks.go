package wire

import "time"

// Webhook is a registered webhook endpoint as admins see it (never its secret, which is
// answered once, at creation and at each rotation), with what its deliveries look like.
type Webhook struct {
	ID string `json:"id"`
	// URL receives a signed POST per event (Standard Webhooks).
	URL string `json:"url"`
	// Events are the event types it receives; empty: all of them.
	Events []string `json:"events"`
	// Metadata a submission must carry (every key with that value); empty: every one.
	Metadata       map[string]string `json:"metadata"`
	Enabled        bool              `json:"enabled"`
	DisabledReason string            `json:"disabled_reason"`
	DisabledAt     *time.Time        `json:"disabled_at"`
	// FailingSince is when its tries started failing, null after a success: an endpoint
	// that fails for the whole retry window is disabled.
	FailingSince *time.Time `json:"failing_since"`
	LastError    string     `json:"last_error"`
	LastErrorAt  *time.Time `json:"last_error_at"`
	// RotatedUntil is when the previous secret stops signing beside the new one (null:
	// no rotation in its grace).
	RotatedUntil *time.Time   `json:"rotated_until"`
	CreatedAt    time.Time    `json:"created_at"`
	CreatedBy    string       `json:"created_by"`
	Stats        WebhookStats `json:"stats"`
}

// WebhookStats counts an endpoint's deliveries.
type WebhookStats struct {
	// Pending are not delivered yet (waiting for their first try or a retry).
	Pending int `json:"pending"`
	// Retrying are pending after at least one failed try.
	Retrying int `json:"retrying"`
	// Delivered counts the deliveries delivered among those made in the last 24 hours.
	Delivered int `json:"delivered_24h"`
	// Failed were given up after their window; kept until redelivered.
	Failed        int        `json:"failed"`
	OldestPending *time.Time `json:"oldest_pending"`
	LastDelivered *time.Time `json:"last_delivered"`
}

// WebhookList is the answer of GET /admin/v1/webhooks.
type WebhookList struct {
	Items []Webhook `json:"items"`
}

// WebhookCreateRequest is the body of POST /admin/v1/webhooks.
type WebhookCreateRequest struct {
	URL      string            `json:"url"`
	Events   []string          `json:"events,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
	DryRun   bool              `json:"dry_run"`
}

// WebhookCreated is the answer of POST /admin/v1/webhooks and of a secret's rotation:
// the endpoint, and its secret (whsec_<base64>), shown this once (empty in a dry run).
type WebhookCreated struct {
	DryRun  bool    `json:"dry_run"`
	Webhook Webhook `json:"webhook"`
	Secret  string  `json:"secret,omitempty"`
}

// WebhookChanged is the answer of an action on an endpoint: removing, enabling,
// disabling it or rotating its secret. Changed counts what was done, WouldChange what a
// dry run would have done (0 when there was nothing to do: enabling an enabled one).
type WebhookChanged struct {
	DryRun      bool   `json:"dry_run"`
	ID          string `json:"id"`
	Action      string `json:"action"`
	Changed     int    `json:"changed"`
	WouldChange int    `json:"would_change"`
	// Undelivered, for a removal: its deliveries not delivered (pending or failed),
	// removed with it.
	Undelivered int `json:"undelivered,omitempty"`
	// Secret, for a rotation: the new one, shown this once.
	Secret string `json:"secret,omitempty"`
	// RotatedUntil, for a rotation: until when the previous secret signs too.
	RotatedUntil *time.Time `json:"rotated_until,omitempty"`
}

// WebhookDelivery is one delivery of one event to one endpoint. ID is its webhook-id,
// the same on every try.
type WebhookDelivery struct {
	ID string `json:"id"`
	// EventID is the feed event's cursor; empty for a test delivery.
	EventID   string `json:"event_id"`
	EventType string `json:"event_type"`
	// Status: pending (waiting for a try), delivered (a 2xx), failed (given up after its
	// window; redeliverable).
	Status   string `json:"status"`
	Attempts int    `json:"attempts"`
	// InFlight: a try is under way now.
	InFlight bool `json:"in_flight"`
	// NextTry is when a pending delivery is tried next.
	NextTry     *time.Time `json:"next_try"`
	ExpiresAt   time.Time  `json:"expires_at"`
	LastStatus  *int       `json:"last_status"`
	LastError   string     `json:"last_error"`
	LastTry     *time.Time `json:"last_try"`
	CreatedAt   time.Time  `json:"created_at"`
	DeliveredAt *time.Time `json:"delivered_at"`
}

// WebhookDeliveryList is the answer of GET /admin/v1/webhooks/{id}/deliveries, newest
// first; NextCursor continues it (empty at the end).
type WebhookDeliveryList struct {
	Items      []WebhookDelivery `json:"items"`
	NextCursor string            `json:"next_cursor"`
}

// WebhookRedelivered is the answer of POST
// /admin/v1/webhooks/{id}/deliveries/{delivery}/redeliver.
type WebhookRedelivered struct {
	DryRun           bool   `json:"dry_run"`
	ID               string `json:"id"`
	Redelivered      int    `json:"redelivered"`
	WouldRedeliver   int    `json:"would_redeliver"`
	PreviousAttempts int    `json:"previous_attempts"`
}

// WebhookTestSent is the answer of POST /admin/v1/webhooks/{id}/test: a test delivery
// (type webhook.test) queued, to be sent, signed and retried like any other.
type WebhookTestSent struct {
	DryRun     bool   `json:"dry_run"`
	DeliveryID string `json:"delivery_id"`
	Queued     int    `json:"queued"`
	WouldQueue int    `json:"would_queue"`
}

// EventWebhookTest is the type of a test delivery's body.
const EventWebhookTest = "webhook.test"
