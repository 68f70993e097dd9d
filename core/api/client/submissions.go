package client

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"oj/core/wire"
)

// SubmitResult is a submit's answer: Submission when it was judged within wait_ms (or an
// idempotent replay of a judged one, status 200), else Accepted (202).
type SubmitResult struct {
	Status     int
	Replayed   bool
	TraceID    string
	Accepted   *wire.Accepted
	Submission *wire.Submission
}

// ID is the submission's id, whichever form the answer took.
func (r *SubmitResult) ID() string {
	if r.Submission != nil {
		return r.Submission.ID
	}
	if r.Accepted != nil {
		return r.Accepted.ID
	}
	return ""
}

// Submit is POST /api/v1/submissions; idempotencyKey may be empty.
func (c *Client) Submit(ctx context.Context, req wire.SubmitRequest, idempotencyKey string) (*SubmitResult, error) {
	h := http.Header{}
	if idempotencyKey != "" {
		h.Set("Idempotency-Key", idempotencyKey)
	}
	rq := request{method: http.MethodPost, path: "/api/v1/submissions", body: req, header: h}
	resp, err := c.do(ctx, rq)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	res := &SubmitResult{Status: resp.StatusCode, Replayed: resp.Header.Get("Idempotent-Replayed") == "true",
		TraceID: resp.Header.Get("X-Trace-Id")}
	dec := json.NewDecoder(resp.Body)
	if resp.StatusCode == http.StatusOK {
		res.Submission = &wire.Submission{}
		err = dec.Decode(res.Submission)
	} else {
		res.Accepted = &wire.Accepted{}
		err = dec.Decode(res.Accepted)
	}
	if err != nil {
		return nil, c.fail(rq, fmt.Errorf("decode answer: %w", err))
	}
	return res, nil
}

// Submission is GET /api/v1/submissions/{id}.
func (c *Client) Submission(ctx context.Context, id string) (*wire.Submission, error) {
	var out wire.Submission
	return &out, c.call(ctx, request{method: http.MethodGet, path: "/api/v1/submissions/" + esc(id)}, &out)
}

// Case is GET /api/v1/submissions/{id}/cases/{n}: case n (its index) of the submission's
// current result with the excerpts of what the solution wrote.
func (c *Client) Case(ctx context.Context, id string, n int) (*wire.CaseDetail, error) {
	var out wire.CaseDetail
	path := fmt.Sprintf("/api/v1/submissions/%s/cases/%d", esc(id), n)
	return &out, c.call(ctx, request{method: http.MethodGet, path: path}, &out)
}

// Events is GET /api/v1/submissions/{id}/events: fn is called with each `state` event and
// each `case` event (Case set: one case of the running attempt judged) until the stream ends (after a terminal state), fn returns an error, or ctx ends.
func (c *Client) Events(ctx context.Context, id string, fn func(wire.StateEvent) error) error {
	rq := request{method: http.MethodGet, path: "/api/v1/submissions/" + esc(id) + "/events",
		header: http.Header{"Accept": []string{"text/event-stream"}}}
	resp, err := c.do(ctx, rq)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var event string
	var data strings.Builder
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if (event == "state" || event == "case") && data.Len() > 0 {
				var ev wire.StateEvent
				if err := json.Unmarshal([]byte(data.String()), &ev); err != nil {
					return c.fail(rq, fmt.Errorf("decode event: %w", err))
				}
				if err := fn(ev); err != nil {
					return err
				}
			}
			event = ""
			data.Reset()
		case strings.HasPrefix(line, ":"):
			// comment (keep-alive)
		case strings.HasPrefix(line, "event:"):
			event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		return c.fail(rq, err)
	}
	return ctx.Err()
}

// Languages is GET /api/v1/languages.
func (c *Client) Languages(ctx context.Context) ([]wire.Language, error) {
	var out wire.Languages
	err := c.call(ctx, request{method: http.MethodGet, path: "/api/v1/languages"}, &out)
	return out.Languages, err
}
