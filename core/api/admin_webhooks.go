package api

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"oj/core/ops"
	"oj/core/store"
	"oj/core/webhook"
	"oj/core/wire"
)

// Webhook endpoints over the admin API. The API only registers and manages them: the
// dispatcher fans the feed out to deliveries and sends them (core/dispatch).

// maxWebhookEvents bounds an endpoint's event types (each must be a known one anyway).
const maxWebhookEvents = 16

// listWebhooks is GET /admin/v1/webhooks: every endpoint with its deliveries' counts.
func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request, _ *store.Token) error {
	eps, err := store.ListWebhookEndpoints(r.Context(), s.d.DB, s.clock.Now())
	if err != nil {
		return unavailable("list webhooks", err)
	}
	out := wire.WebhookList{Items: make([]wire.Webhook, 0, len(eps))}
	for i := range eps {
		out.Items = append(out.Items, webhookWire(&eps[i], s))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// getWebhook is GET /admin/v1/webhooks/{id}.
func (s *Server) getWebhook(w http.ResponseWriter, r *http.Request, _ *store.Token) error {
	ep, err := store.GetWebhookEndpointStats(r.Context(), s.d.DB, r.PathValue("id"), s.clock.Now())
	if err != nil {
		return opsError("webhook", err, "no webhook "+quoteClip(r.PathValue("id"), 40))
	}
	writeJSON(w, http.StatusOK, webhookWire(ep, s))
	return nil
}

// createWebhook is POST /admin/v1/webhooks: a new endpoint, enabled, receiving the events
// committed from now on; its secret is answered once (201). Audited; a dry run checks the
// request and registers nothing (200).
func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	var req wire.WebhookCreateRequest
	if err := decodeAdmin(w, r, &req); err != nil {
		return err
	}
	if err := webhook.ValidateURL(req.URL); err != nil {
		return errorf(http.StatusBadRequest, codeBadRequest, "%v", err)
	}
	if err := webhook.CheckAddress(r.Context(), req.URL, s.cfg.Webhooks.AllowPrivate); err != nil {
		return errorf(http.StatusBadRequest, codeBadRequest, "%v", err)
	}
	if len(req.Events) > maxWebhookEvents {
		return errorf(http.StatusBadRequest, codeBadRequest, "events: %d types, at most %d", len(req.Events), maxWebhookEvents)
	}
	for _, t := range req.Events {
		if !slices.Contains(wire.EventTypes, t) {
			return errorf(http.StatusBadRequest, codeBadRequest, "events: %q is no event type (want one of %s)",
				quoteClip(t, 60), strings.Join(wire.EventTypes, ", "))
		}
	}
	if aerr := checkMetadata(req.Metadata); aerr != nil {
		return aerr
	}
	or, err := s.opsRequest(r, tok, req.DryRun)
	if err != nil {
		return err
	}
	secret, err := webhook.NewSecret()
	if err != nil {
		return unavailable("webhook secret", err)
	}
	events := slices.Compact(slices.Sorted(slices.Values(req.Events)))
	created, err := s.ops.CreateWebhook(r.Context(), or, ops.WebhookCreateParams{URL: req.URL, Events: events,
		Metadata: nonNilMeta(req.Metadata)}, secret)
	if err != nil {
		return unavailable("create webhook", err)
	}
	status := http.StatusCreated
	if or.DryRun {
		status = http.StatusOK
	}
	stats := store.WebhookEndpointStats{WebhookEndpoint: *created.Endpoint}
	writeJSON(w, status, wire.WebhookCreated{DryRun: or.DryRun, Webhook: webhookWire(&stats, s), Secret: created.Secret})
	return nil
}

// deleteWebhook is DELETE /admin/v1/webhooks/{id}[?dry_run=true]: the endpoint and its
// deliveries go. Audited.
func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	id := r.PathValue("id")
	return act(s, w, r, tok, action[wire.WebhookChanged]{queryOnly: true, what: "remove webhook",
		notFound: "no webhook " + quoteClip(id, 40),
		do: func(or ops.Request) (wire.WebhookChanged, error) {
			c, err := s.ops.DeleteWebhook(r.Context(), or, id)
			return wire.WebhookChanged{DryRun: or.DryRun, ID: id, Action: "remove", Changed: c.Removed,
				WouldChange: c.WouldRemove, Undelivered: c.Pending}, err
		}})
}

// enableWebhook is POST /admin/v1/webhooks/{id}/enable: it receives the events committed
// from now on, and its pending deliveries are tried at once. Audited.
func (s *Server) enableWebhook(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	return s.webhookAction(w, r, tok, "enable", func(or ops.Request, id string) (int, int, error) {
		c, err := s.ops.EnableWebhook(r.Context(), or, id)
		return c.Enabled, c.WouldEnable, err
	})
}

// disableWebhook is POST /admin/v1/webhooks/{id}/disable: nothing more is fanned out to
// it, and its pending deliveries wait until it is enabled. Audited.
func (s *Server) disableWebhook(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	return s.webhookAction(w, r, tok, "disable", func(or ops.Request, id string) (int, int, error) {
		c, err := s.ops.DisableWebhook(r.Context(), or, id)
		return c.Disabled, c.WouldDisable, err
	})
}

func (s *Server) webhookAction(w http.ResponseWriter, r *http.Request, tok *store.Token, verb string,
	do func(ops.Request, string) (int, int, error)) error {
	id := r.PathValue("id")
	return act(s, w, r, tok, action[wire.WebhookChanged]{what: verb + " webhook", notFound: "no webhook " + quoteClip(id, 40),
		do: func(or ops.Request) (wire.WebhookChanged, error) {
			changed, would, err := do(or, id)
			return wire.WebhookChanged{DryRun: or.DryRun, ID: id, Action: verb, Changed: changed, WouldChange: would}, err
		}})
}

// rotateWebhook is POST /admin/v1/webhooks/{id}/rotate: a new secret, answered once; the
// previous one signs beside it (a second signature) for webhooks.rotation_grace. Audited.
func (s *Server) rotateWebhook(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	id := r.PathValue("id")
	or, err := s.actionRequest(w, r, tok)
	if err != nil {
		return err
	}
	secret, err := webhook.NewSecret()
	if err != nil {
		return unavailable("webhook secret", err)
	}
	c, err := s.ops.RotateWebhookSecret(r.Context(), or, id, secret, s.cfg.Webhooks.RotationGrace)
	if err != nil {
		return opsError("rotate webhook secret", err, "no webhook "+quoteClip(id, 40))
	}
	out := wire.WebhookChanged{DryRun: or.DryRun, ID: id, Action: "rotate", Changed: c.Rotated, WouldChange: c.WouldRotate}
	if !or.DryRun {
		out.Secret = secret
		ep, err := store.GetWebhookEndpoint(r.Context(), s.d.DB, id)
		if err != nil {
			return unavailable("read webhook", err)
		}
		out.RotatedUntil = ep.PreviousUntil
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// testWebhook is POST /admin/v1/webhooks/{id}/test: a webhook.test delivery, sent by the
// dispatcher like any other (signed, retried). 409 when the endpoint is disabled.
func (s *Server) testWebhook(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	id := r.PathValue("id")
	return act(s, w, r, tok, action[wire.WebhookTestSent]{what: "test webhook", notFound: "no webhook " + quoteClip(id, 40),
		do: func(or ops.Request) (wire.WebhookTestSent, error) {
			delivery, c, err := s.ops.TestWebhook(r.Context(), or, id, s.cfg.Webhooks.Window())
			return wire.WebhookTestSent{DryRun: or.DryRun, DeliveryID: delivery, Queued: c.Queued, WouldQueue: c.WouldQueue}, err
		}})
}

// Bounds of a deliveries page.
const (
	defaultDeliveries = 50
	maxDeliveries     = 500
)

// listDeliveries is GET /admin/v1/webhooks/{id}/deliveries?status=&limit=&cursor=: the
// endpoint's deliveries, newest first.
func (s *Server) listDeliveries(w http.ResponseWriter, r *http.Request, _ *store.Token) error {
	id := r.PathValue("id")
	limit, err := queryInt(r, "limit", defaultDeliveries, maxDeliveries)
	if err != nil {
		return err
	}
	if limit == 0 {
		limit = defaultDeliveries
	}
	status := r.URL.Query().Get("status")
	if status != "" && status != store.DeliveryPending && status != store.DeliveryDelivered && status != store.DeliveryFailed {
		return errorf(http.StatusBadRequest, codeBadRequest, "status: %q (want pending, delivered or failed)", quoteClip(status, 40))
	}
	if _, err := store.GetWebhookEndpoint(r.Context(), s.d.DB, id); err != nil {
		return opsError("webhook", err, "no webhook "+quoteClip(id, 40))
	}
	ds, err := store.ListWebhookDeliveries(r.Context(), s.d.DB, id, status, r.URL.Query().Get("cursor"), int(limit))
	switch {
	case errors.Is(err, store.ErrBadCursor):
		return errorf(http.StatusBadRequest, codeBadRequest, "cursor: not one this server gave out (next_cursor of a page)")
	case err != nil:
		return unavailable("list deliveries", err)
	}
	out := wire.WebhookDeliveryList{Items: make([]wire.WebhookDelivery, 0, len(ds))}
	for i := range ds {
		out.Items = append(out.Items, deliveryWire(&ds[i]))
	}
	if len(ds) == int(limit) {
		out.NextCursor = ds[len(ds)-1].ID
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// redeliver is POST /admin/v1/webhooks/{id}/deliveries/{delivery}/redeliver: the delivery
// (delivered or failed, or pending to try it now) is tried again at once with a new
// retry window, under the same webhook-id. Audited; 409 while a try of it is in flight.
func (s *Server) redeliver(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	id, delivery := r.PathValue("id"), r.PathValue("delivery")
	return act(s, w, r, tok, action[wire.WebhookRedelivered]{what: "redeliver",
		notFound: "webhook " + quoteClip(id, 40) + " has no delivery " + quoteClip(delivery, 40),
		do: func(or ops.Request) (wire.WebhookRedelivered, error) {
			c, err := s.ops.RedeliverWebhook(r.Context(), or, id, delivery, s.cfg.Webhooks.Window())
			return wire.WebhookRedelivered{DryRun: or.DryRun, ID: delivery, Redelivered: c.Redelivered,
				WouldRedeliver: c.WouldRedeliver, PreviousAttempts: c.PreviousAttempts}, err
		}})
}

func webhookWire(e *store.WebhookEndpointStats, s *Server) wire.Webhook {
	out := wire.Webhook{ID: e.ID, URL: e.URL, Events: e.EventTypes, Metadata: nonNilMeta(e.Metadata), Enabled: e.Enabled,
		DisabledReason: e.DisabledReason, DisabledAt: e.DisabledAt, FailingSince: e.FailingSince, LastError: e.LastError,
		LastErrorAt: e.LastErrorAt, CreatedAt: e.CreatedAt, CreatedBy: e.CreatedBy,
		Stats: wire.WebhookStats{Pending: e.Pending, Retrying: e.Retrying, Delivered: e.Delivered, Failed: e.Failed,
			OldestPending: e.OldestPending, LastDelivered: e.LastDelivered}}
	if out.Events == nil {
		out.Events = []string{}
	}
	if e.PreviousSecret != "" && e.PreviousUntil != nil && s.clock.Now().Before(*e.PreviousUntil) {
		out.RotatedUntil = e.PreviousUntil
	}
	return out
}

func deliveryWire(d *store.WebhookDelivery) wire.WebhookDelivery {
	out := wire.WebhookDelivery{ID: d.ID, EventID: d.EventID, EventType: d.EventType, Status: d.Status, Attempts: d.Attempts,
		InFlight: d.Status == store.DeliveryPending && d.LeaseOwner != "", ExpiresAt: d.ExpiresAt, LastStatus: d.LastStatus,
		LastError: d.LastError, LastTry: d.LastTry, CreatedAt: d.CreatedAt, DeliveredAt: d.DeliveredAt}
	if d.Status == store.DeliveryPending {
		next := d.NextTry
		out.NextTry = &next
	}
	return out
}
