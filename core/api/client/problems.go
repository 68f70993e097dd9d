package client

import (
	"context"
	"io"
	"net/http"
	"net/url"

	"oj/core/wire"
)

// PutProblem is PUT /api/v1/problems/{id} (admin): zip is the package. A package the
// server refuses comes back as an *Error with status 400 and the reason as its message.
func (c *Client) PutProblem(ctx context.Context, id string, zip io.Reader) (*wire.Problem, error) {
	return c.PutProblemAs(ctx, id, "", zip)
}

// PutProblemAs is PUT /api/v1/problems/{id}?format=: the package read as format (oj,
// kattis, polygon; "" detects it).
func (c *Client) PutProblemAs(ctx context.Context, id, format string, zip io.Reader) (*wire.Problem, error) {
	var out wire.Problem
	var q url.Values
	if format != "" {
		q = url.Values{"format": {format}}
	}
	err := c.call(ctx, request{method: http.MethodPut, path: "/api/v1/problems/" + esc(id), query: q, body: zip,
		header: http.Header{"Content-Type": []string{"application/zip"}}}, &out)
	return &out, err
}

// VerifyProblem is POST /admin/v1/problems/{id}/verify.
func (c *Client) VerifyProblem(ctx context.Context, id string, dryRun bool) (*wire.VerifyStarted, error) {
	var out wire.VerifyStarted
	return &out, c.call(ctx, request{method: http.MethodPost, path: "/admin/v1/problems/" + esc(id) + "/verify",
		body: wire.ActionRequest{DryRun: dryRun}}, &out)
}

// Verification is GET /admin/v1/problems/{id}/verify: the latest version's latest
// verification.
func (c *Client) Verification(ctx context.Context, id string) (*wire.Verification, error) {
	var out wire.Verification
	return &out, c.call(ctx, request{method: http.MethodGet, path: "/admin/v1/problems/" + esc(id) + "/verify"}, &out)
}

// Problem is GET /api/v1/problems/{id}.
func (c *Client) Problem(ctx context.Context, id string) (*wire.Problem, error) {
	var out wire.Problem
	return &out, c.call(ctx, request{method: http.MethodGet, path: "/api/v1/problems/" + esc(id)}, &out)
}

// Healthz is GET /healthz.
func (c *Client) Healthz(ctx context.Context) error {
	return c.call(ctx, request{method: http.MethodGet, path: "/healthz"}, nil)
}

// Readyz is GET /readyz: nil when PostgreSQL and Redis both answer.
func (c *Client) Readyz(ctx context.Context) (wire.Health, error) {
	out := wire.Health{}
	return out, c.call(ctx, request{method: http.MethodGet, path: "/readyz"}, &out)
}
