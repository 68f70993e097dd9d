package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"oj/core/wire"
)

// Webhooks is GET /admin/v1/webhooks.
func (c *Client) Webhooks(ctx context.Context) (*wire.WebhookList, error) {
	var out wire.WebhookList
	return &out, c.call(ctx, request{method: http.MethodGet, path: "/admin/v1/webhooks"}, &out)
}

// Webhook is GET /admin/v1/webhooks/{id}.
func (c *Client) Webhook(ctx context.Context, id string) (*wire.Webhook, error) {
	var out wire.Webhook
	return &out, c.call(ctx, request{method: http.MethodGet, path: "/admin/v1/webhooks/" + esc(id)}, &out)
}

// CreateWebhook is POST /admin/v1/webhooks.
func (c *Client) CreateWebhook(ctx context.Context, req wire.WebhookCreateRequest) (*wire.WebhookCreated, error) {
	var out wire.WebhookCreated
	return &out, c.call(ctx, request{method: http.MethodPost, path: "/admin/v1/webhooks", body: req}, &out)
}

// DeleteWebhook is DELETE /admin/v1/webhooks/{id}.
func (c *Client) DeleteWebhook(ctx context.Context, id string, dryRun bool) (*wire.WebhookChanged, error) {
	var out wire.WebhookChanged
	return &out, c.call(ctx, request{method: http.MethodDelete, path: "/admin/v1/webhooks/" + esc(id), query: dryRunQuery(dryRun)}, &out)
}

// WebhookAction is POST /admin/v1/webhooks/{id}/{action}, action one of enable, disable
// and rotate.
func (c *Client) WebhookAction(ctx context.Context, id, action string, dryRun bool) (*wire.WebhookChanged, error) {
	var out wire.WebhookChanged
	return &out, c.call(ctx, request{method: http.MethodPost, path: "/admin/v1/webhooks/" + esc(id) + "/" + esc(action),
		body: wire.ActionRequest{DryRun: dryRun}}, &out)
}

// TestWebhook is POST /admin/v1/webhooks/{id}/test.
func (c *Client) TestWebhook(ctx context.Context, id string, dryRun bool) (*wire.WebhookTestSent, error) {
	var out wire.WebhookTestSent
	return &out, c.call(ctx, request{method: http.MethodPost, path: "/admin/v1/webhooks/" + esc(id) + "/test",
		body: wire.ActionRequest{DryRun: dryRun}}, &out)
}

// WebhookDeliveries is GET /admin/v1/webhooks/{id}/deliveries (status empty: all; limit
// 0: the server's default; cursor: a page's next_cursor).
func (c *Client) WebhookDeliveries(ctx context.Context, id, status string, limit int, cursor string) (*wire.WebhookDeliveryList, error) {
	var out wire.WebhookDeliveryList
	q := url.Values{}
	if status != "" {
		q.Set("status", status)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	return &out, c.call(ctx, request{method: http.MethodGet, path: "/admin/v1/webhooks/" + esc(id) + "/deliveries", query: q}, &out)
}

// Redeliver is POST /admin/v1/webhooks/{id}/deliveries/{delivery}/redeliver.
func (c *Client) Redeliver(ctx context.Context, id, delivery string, dryRun bool) (*wire.WebhookRedelivered, error) {
	var out wire.WebhookRedelivered
	return &out, c.call(ctx, request{method: http.MethodPost,
		path: "/admin/v1/webhooks/" + esc(id) + "/deliveries/" + esc(delivery) + "/redeliver",
		body: wire.ActionRequest{DryRun: dryRun}}, &out)
}
