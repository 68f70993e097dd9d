package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"oj/core/wire"
)

// Overview is GET /admin/v1/overview.
func (c *Client) Overview(ctx context.Context) (*wire.Overview, error) {
	var out wire.Overview
	return &out, c.call(ctx, request{method: http.MethodGet, path: "/admin/v1/overview"}, &out)
}

// PEL is GET /admin/v1/pel: lane "" for every lane; limit 0 for the server's default.
func (c *Client) PEL(ctx context.Context, lane string, minIdle time.Duration, limit int) ([]wire.PendingEntry, error) {
	q := url.Values{}
	if lane != "" {
		q.Set("lane", lane)
	}
	if minIdle > 0 {
		q.Set("min_idle_ms", strconv.FormatInt(minIdle.Milliseconds(), 10))
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var out wire.PEL
	err := c.call(ctx, request{method: http.MethodGet, path: "/admin/v1/pel", query: q}, &out)
	return out.Entries, err
}

// Reclaim is POST /admin/v1/reclaim.
func (c *Client) Reclaim(ctx context.Context, req wire.ReclaimRequest) (*wire.ReclaimResult, error) {
	var out wire.ReclaimResult
	return &out, c.call(ctx, request{method: http.MethodPost, path: "/admin/v1/reclaim", body: req}, &out)
}

// Outbox is GET /admin/v1/outbox.
func (c *Client) Outbox(ctx context.Context, limit int) (*wire.Outbox, error) {
	var out wire.Outbox
	return &out, c.call(ctx, request{method: http.MethodGet, path: "/admin/v1/outbox", query: limitQuery(limit)}, &out)
}

// DLQ is GET /admin/v1/dlq: one page; pass the previous page's NextCursor for the next.
func (c *Client) DLQ(ctx context.Context, limit int, cursor string) (*wire.DLQ, error) {
	q := limitQuery(limit)
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	var out wire.DLQ
	return &out, c.call(ctx, request{method: http.MethodGet, path: "/admin/v1/dlq", query: q}, &out)
}

// Submissions is GET /admin/v1/submissions: one page, newest first; pass the previous
// page's NextCursor as q.Cursor for the next.
func (c *Client) Submissions(ctx context.Context, q wire.ListSubmissionsQuery) (*wire.SubmissionList, error) {
	var out wire.SubmissionList
	return &out, c.call(ctx, request{method: http.MethodGet, path: "/admin/v1/submissions", query: listQuery(q)}, &out)
}

// MySubmissions is GET /api/v1/submissions: a user token's own submissions (every one for
// a reader or admin token), one page, newest first.
func (c *Client) MySubmissions(ctx context.Context, q wire.ListSubmissionsQuery) (*wire.SubmissionList, error) {
	var out wire.SubmissionList
	return &out, c.call(ctx, request{method: http.MethodGet, path: "/api/v1/submissions", query: listQuery(q)}, &out)
}

func listQuery(q wire.ListSubmissionsQuery) url.Values {
	v := limitQuery(q.Limit)
	for name, val := range map[string]string{"state": q.State, "problem": q.ProblemID, "owner": q.Owner, "cursor": q.Cursor,
		"purpose": q.Purpose} {
		if val != "" {
			v.Set(name, val)
		}
	}
	for k, val := range q.Metadata {
		v.Set("meta."+k, val)
	}
	return v
}

// ReplayDLQ is POST /admin/v1/dlq/replay.
func (c *Client) ReplayDLQ(ctx context.Context, req wire.ReplayRequest) (*wire.ReplayResult, error) {
	var out wire.ReplayResult
	return &out, c.call(ctx, request{method: http.MethodPost, path: "/admin/v1/dlq/replay", body: req}, &out)
}

// Trim is POST /admin/v1/trim.
func (c *Client) Trim(ctx context.Context, req wire.TrimRequest) (*wire.TrimResult, error) {
	var out wire.TrimResult
	return &out, c.call(ctx, request{method: http.MethodPost, path: "/admin/v1/trim", body: req}, &out)
}

// RejudgeSubmission is POST /admin/v1/submissions/{id}/rejudge.
func (c *Client) RejudgeSubmission(ctx context.Context, id string, dryRun bool) (*wire.RejudgeResult, error) {
	var out wire.RejudgeResult
	return &out, c.call(ctx, request{method: http.MethodPost, path: "/admin/v1/submissions/" + esc(id) + "/rejudge",
		body: wire.ActionRequest{DryRun: dryRun}}, &out)
}

// RejudgeProblem is POST /admin/v1/problems/{id}/rejudge.
func (c *Client) RejudgeProblem(ctx context.Context, id string, dryRun bool) (*wire.RejudgeResult, error) {
	var out wire.RejudgeResult
	return &out, c.call(ctx, request{method: http.MethodPost, path: "/admin/v1/problems/" + esc(id) + "/rejudge",
		body: wire.ActionRequest{DryRun: dryRun}}, &out)
}

// Cancel is POST /admin/v1/submissions/{id}/cancel.
func (c *Client) Cancel(ctx context.Context, id string, dryRun bool) (*wire.CancelResult, error) {
	var out wire.CancelResult
	return &out, c.call(ctx, request{method: http.MethodPost, path: "/admin/v1/submissions/" + esc(id) + "/cancel",
		body: wire.ActionRequest{DryRun: dryRun}}, &out)
}

// Workers is GET /admin/v1/workers.
func (c *Client) Workers(ctx context.Context) (*wire.Workers, error) {
	var out wire.Workers
	return &out, c.call(ctx, request{method: http.MethodGet, path: "/admin/v1/workers"}, &out)
}

// SetWorkerState is POST /admin/v1/workers/{name}/{action}, action being drain, disable or
// enable.
func (c *Client) SetWorkerState(ctx context.Context, name, action, reason string, dryRun bool) (*wire.WorkerActionResult, error) {
	var out wire.WorkerActionResult
	return &out, c.call(ctx, request{method: http.MethodPost, path: "/admin/v1/workers/" + esc(name) + "/" + esc(action),
		body: wire.WorkerActionRequest{Reason: reason, DryRun: dryRun}}, &out)
}

// Audit is GET /admin/v1/audit, newest first.
func (c *Client) Audit(ctx context.Context, limit int) ([]wire.AuditEntry, error) {
	var out wire.Audit
	err := c.call(ctx, request{method: http.MethodGet, path: "/admin/v1/audit", query: limitQuery(limit)}, &out)
	return out.Entries, err
}

// Trace is GET /admin/v1/submissions/{id}/trace.
func (c *Client) Trace(ctx context.Context, id string) (*wire.Trace, error) {
	var out wire.Trace
	return &out, c.call(ctx, request{method: http.MethodGet, path: "/admin/v1/submissions/" + esc(id) + "/trace"}, &out)
}

func limitQuery(limit int) url.Values {
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	return q
}
