package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"oj/core/store"
)

// Webhook endpoints' admin actions: register, remove, enable, disable, rotate the
// secret, redeliver, send a test. Each is one transaction audited in it (a dry run is
// that transaction rolled back). The secret is never a parameter of the audit row.

// WebhookCreateParams is an endpoint to register.
type WebhookCreateParams struct {
	URL      string            `json:"url"`
	Events   []string          `json:"events"`
	Metadata map[string]string `json:"metadata"`
}

// WebhookCreateCounts counts what a registration did, or in a dry run would do.
type WebhookCreateCounts struct {
	Created     int `json:"created"`
	WouldCreate int `json:"would_create"`
}

// CreatedWebhook is the outcome of CreateWebhook: the endpoint and its secret (empty in
// a dry run).
type CreatedWebhook struct {
	Endpoint *store.WebhookEndpoint
	Secret   string
	Counts   WebhookCreateCounts
}

// CreateWebhook registers an endpoint with secret, enabled, starting at the feed's head.
func (o *Ops) CreateWebhook(ctx context.Context, req Request, p WebhookCreateParams, secret string) (CreatedWebhook, error) {
	var out CreatedWebhook
	counts, err := audited(ctx, o, req, ActionWebhookCreate, p, true, func(ctx context.Context, db store.DB) (WebhookCreateCounts, error) {
		ep, err := store.CreateWebhookEndpoint(ctx, db, store.NewWebhookEndpoint{URL: p.URL, EventTypes: p.Events,
			Metadata: p.Metadata, Secret: secret, CreatedBy: req.Actor, Now: o.clock.Now()})
		if err != nil {
			return WebhookCreateCounts{}, err
		}
		out.Endpoint = ep
		if !req.DryRun {
			out.Secret = secret
		}
		var c WebhookCreateCounts
		tally(req.DryRun, 1, &c.Created, &c.WouldCreate)
		return c, nil
	})
	if err != nil {
		return CreatedWebhook{}, fmt.Errorf("create webhook: %w", err)
	}
	out.Counts = counts
	return out, nil
}

// WebhookParams names the endpoint an action is about.
type WebhookParams struct {
	ID  string `json:"id"`
	URL string `json:"url,omitempty"`
}

// WebhookRemoveCounts counts a removal: the endpoint, and the deliveries that went with it.
type WebhookRemoveCounts struct {
	Removed     int `json:"removed"`
	WouldRemove int `json:"would_remove"`
	// Pending is how many of its deliveries were not delivered yet (pending or failed).
	Pending int `json:"pending"`
}

// DeleteWebhook removes an endpoint and its deliveries. store.ErrNotFound when there is
// none.
func (o *Ops) DeleteWebhook(ctx context.Context, req Request, id string) (WebhookRemoveCounts, error) {
	return audited(ctx, o, req, ActionWebhookRemove, WebhookParams{ID: id}, true, func(ctx context.Context, db store.DB) (WebhookRemoveCounts, error) {
		var c WebhookRemoveCounts
		pending, err := store.DeleteWebhookEndpoint(ctx, db, id)
		if err != nil {
			return c, err
		}
		c.Pending = pending
		tally(req.DryRun, 1, &c.Removed, &c.WouldRemove)
		return c, nil
	})
}

// WebhookEnableCounts counts an enabling.
type WebhookEnableCounts struct {
	Enabled     int `json:"enabled"`
	WouldEnable int `json:"would_enable"`
}

// EnableWebhook enables an endpoint: it receives the events from now on, and its
// pending deliveries are tried again at once. Enabling an enabled one counts 0.
func (o *Ops) EnableWebhook(ctx context.Context, req Request, id string) (WebhookEnableCounts, error) {
	return audited(ctx, o, req, ActionWebhookEnable, WebhookParams{ID: id}, true, func(ctx context.Context, db store.DB) (WebhookEnableCounts, error) {
		changed, err := store.EnableWebhookEndpoint(ctx, db, id, o.clock.Now())
		var c WebhookEnableCounts
		if err == nil && changed {
			tally(req.DryRun, 1, &c.Enabled, &c.WouldEnable)
		}
		return c, err
	})
}

// WebhookDisableCounts counts a disabling, with its reason.
type WebhookDisableCounts struct {
	Disabled     int    `json:"disabled"`
	WouldDisable int    `json:"would_disable"`
	Reason       string `json:"reason,omitempty"`
}

// DisableWebhook disables an endpoint: nothing more is fanned out to it, and its pending
// deliveries wait until it is enabled. Disabling a disabled one counts 0.
func (o *Ops) DisableWebhook(ctx context.Context, req Request, id string) (WebhookDisableCounts, error) {
	reason := "disabled by " + req.Actor
	return audited(ctx, o, req, ActionWebhookDisable, WebhookParams{ID: id}, true, func(ctx context.Context, db store.DB) (WebhookDisableCounts, error) {
		changed, err := store.DisableWebhookEndpoint(ctx, db, id, reason, o.clock.Now())
		c := WebhookDisableCounts{Reason: reason}
		if err == nil && changed {
			tally(req.DryRun, 1, &c.Disabled, &c.WouldDisable)
		}
		return c, err
	})
}

// WebhookRotateCounts counts a rotation.
type WebhookRotateCounts struct {
	Rotated     int `json:"rotated"`
	WouldRotate int `json:"would_rotate"`
}

// RotateWebhookSecret gives an endpoint secret; the old one signs beside it for grace.
func (o *Ops) RotateWebhookSecret(ctx context.Context, req Request, id, secret string, grace time.Duration) (WebhookRotateCounts, error) {
	return audited(ctx, o, req, ActionWebhookRotate, WebhookParams{ID: id}, true, func(ctx context.Context, db store.DB) (WebhookRotateCounts, error) {
		var c WebhookRotateCounts
		if err := store.RotateWebhookSecret(ctx, db, id, secret, grace, o.clock.Now()); err != nil {
			return c, err
		}
		tally(req.DryRun, 1, &c.Rotated, &c.WouldRotate)
		return c, nil
	})
}

// WebhookDeliveryParams names a delivery of an endpoint.
type WebhookDeliveryParams struct {
	ID         string `json:"id"`
	DeliveryID string `json:"delivery_id"`
}

// WebhookRedeliverCounts counts a redelivery.
type WebhookRedeliverCounts struct {
	Redelivered      int `json:"redelivered"`
	WouldRedeliver   int `json:"would_redeliver"`
	PreviousAttempts int `json:"previous_attempts"`
}

// RedeliverWebhook makes a delivery pending again, due now, with a new window of
// window; its webhook-id stays. store.ErrConflict while a try of it is in flight.
func (o *Ops) RedeliverWebhook(ctx context.Context, req Request, id, deliveryID string, window time.Duration) (WebhookRedeliverCounts, error) {
	p := WebhookDeliveryParams{ID: id, DeliveryID: deliveryID}
	return audited(ctx, o, req, ActionWebhookRedeliver, p, true, func(ctx context.Context, db store.DB) (WebhookRedeliverCounts, error) {
		var c WebhookRedeliverCounts
		d, err := store.GetWebhookDelivery(ctx, db, id, deliveryID)
		if err != nil {
			return c, err
		}
		c.PreviousAttempts = d.Attempts
		if err := store.RedeliverWebhook(ctx, db, id, deliveryID, o.clock.Now(), window); err != nil {
			return WebhookRedeliverCounts{}, err
		}
		tally(req.DryRun, 1, &c.Redelivered, &c.WouldRedeliver)
		return c, nil
	})
}

// EventWebhookTest is the type of a test delivery's event.
const EventWebhookTest = "webhook.test"

// WebhookTestCounts counts a test delivery.
type WebhookTestCounts struct {
	Queued     int `json:"queued"`
	WouldQueue int `json:"would_queue"`
}

// TestWebhook queues a test delivery to an enabled endpoint, through the real delivery
// path: signed, tried and retried like any other. It returns its id ("" in a dry run).
// store.ErrConflict when the endpoint is disabled (nothing is sent to it).
func (o *Ops) TestWebhook(ctx context.Context, req Request, id string, window time.Duration) (string, WebhookTestCounts, error) {
	var deliveryID string
	counts, err := audited(ctx, o, req, ActionWebhookTest, WebhookParams{ID: id}, true, func(ctx context.Context, db store.DB) (WebhookTestCounts, error) {
		var c WebhookTestCounts
		ep, err := store.GetWebhookEndpoint(ctx, db, id)
		if err != nil {
			return c, err
		}
		if !ep.Enabled {
			return c, fmt.Errorf("webhook %s is disabled (%s): enable it first: %w", id, ep.DisabledReason, store.ErrConflict)
		}
		now := o.clock.Now()
		body, err := json.Marshal(testEvent{Type: EventWebhookTest, Reason: "test", Time: now,
			Data: testData{EndpointID: id, RequestedBy: req.Actor}})
		if err != nil {
			return c, err
		}
		ids, err := store.InsertWebhookDeliveries(ctx, db, []store.NewWebhookDelivery{{EndpointID: id,
			EventType: EventWebhookTest, Payload: body}}, now, window)
		if err != nil {
			return c, err
		}
		if !req.DryRun {
			deliveryID = ids[0]
		}
		tally(req.DryRun, 1, &c.Queued, &c.WouldQueue)
		return c, nil
	})
	return deliveryID, counts, err
}

// testEvent is a test delivery's body: an event of the feed's shape, of type
// webhook.test, whose id is empty (it is no event of the feed).
type testEvent struct {
	ID     string    `json:"id"`
	Type   string    `json:"type"`
	Reason string    `json:"reason"`
	Time   time.Time `json:"time"`
	Data   testData  `json:"data"`
}

type testData struct {
	EndpointID  string `json:"endpoint_id"`
	RequestedBy string `json:"requested_by"`
}
