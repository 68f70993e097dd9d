package client

import (
	"context"
	"net/http"
	"net/url"

	"oj/core/wire"
)

// Problems is GET /api/v1/problems (admin): archived is "" or "all" for every problem,
// "false" for live ones only, "true" for archived ones only.
func (c *Client) Problems(ctx context.Context, archived string) (*wire.ProblemList, error) {
	q := url.Values{}
	if archived != "" {
		q.Set("archived", archived)
	}
	var out wire.ProblemList
	return &out, c.call(ctx, request{method: http.MethodGet, path: "/api/v1/problems", query: q}, &out)
}

// RemoveProblem is DELETE /api/v1/problems/{id} (admin): a problem with submissions is
// archived, one without is deleted; with dryRun, the answer says which and nothing changes.
func (c *Client) RemoveProblem(ctx context.Context, id string, dryRun bool) (*wire.ProblemRemoved, error) {
	var out wire.ProblemRemoved
	return &out, c.call(ctx, request{method: http.MethodDelete, path: "/api/v1/problems/" + esc(id), query: dryRunQuery(dryRun)}, &out)
}

// PurgeDLQ is POST /admin/v1/dlq/purge: the dead letters are removed, the submissions
// stay dead.
func (c *Client) PurgeDLQ(ctx context.Context, req wire.PurgeRequest) (*wire.PurgeResult, error) {
	var out wire.PurgeResult
	return &out, c.call(ctx, request{method: http.MethodPost, path: "/admin/v1/dlq/purge", body: req}, &out)
}
