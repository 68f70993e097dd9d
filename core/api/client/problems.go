package client

import (
	"context"
	"io"
	"net/http"

	"oj/core/api/wire"
)

// PutProblem is PUT /api/v1/problems/{id} (admin): zip is the package. A package the
// server refuses comes back as an *Error with status 400 and the reason as its message.
func (c *Client) PutProblem(ctx context.Context, id string, zip io.Reader) (*wire.Problem, error) {
	var out wire.Problem
	err := c.call(ctx, request{method: http.MethodPut, path: "/api/v1/problems/" + esc(id), body: zip,
		header: http.Header{"Content-Type": []string{"application/zip"}}}, &out)
	return &out, err
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
