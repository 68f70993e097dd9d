package client

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"oj/core/wire"
)

// Tokens is GET /admin/v1/tokens.
func (c *Client) Tokens(ctx context.Context) (*wire.TokenList, error) {
	var out wire.TokenList
	return &out, c.call(ctx, request{method: http.MethodGet, path: "/admin/v1/tokens"}, &out)
}

// CreateToken is POST /admin/v1/tokens.
func (c *Client) CreateToken(ctx context.Context, req wire.TokenCreateRequest) (*wire.TokenCreated, error) {
	var out wire.TokenCreated
	return &out, c.call(ctx, request{method: http.MethodPost, path: "/admin/v1/tokens", body: req}, &out)
}

// RevokeToken is DELETE /admin/v1/tokens/{name}.
func (c *Client) RevokeToken(ctx context.Context, name string, dryRun bool) (*wire.TokenRevoked, error) {
	var out wire.TokenRevoked
	return &out, c.call(ctx, request{method: http.MethodDelete, path: "/admin/v1/tokens/" + esc(name), query: dryRunQuery(dryRun)}, &out)
}

// FeedQuery is what GET /api/v1/events is asked: Since an event's ID (or "now"; empty: the
// oldest event kept), Follow to stay open for new events, and the filters.
type FeedQuery struct {
	Since     string
	Follow    bool
	Types     []string
	ProblemID string
	Metadata  map[string]string
	// Purpose is user (the server's default), verify or all.
	Purpose string
}

// Feed reads GET /api/v1/events as NDJSON, calling fn with each event in order, and
// returns the cursor reached (the last event's ID, or a heartbeat's when filtered-out
// events moved it): resume from it after a disconnect. It ends when the answer does
// (Follow false: at the head), fn returns an error, or ctx ends.
func (c *Client) Feed(ctx context.Context, q FeedQuery, fn func(wire.Event) error) (string, error) {
	v := url.Values{"follow": []string{strconv.FormatBool(q.Follow)}}
	if q.Since != "" {
		v.Set("since", q.Since)
	}
	if len(q.Types) > 0 {
		v.Set("types", strings.Join(q.Types, ","))
	}
	if q.ProblemID != "" {
		v.Set("problem", q.ProblemID)
	}
	if q.Purpose != "" {
		v.Set("purpose", q.Purpose)
	}
	for k, val := range q.Metadata {
		v.Set("meta."+k, val)
	}
	rq := request{method: http.MethodGet, path: "/api/v1/events", query: v,
		header: http.Header{"Accept": []string{"application/x-ndjson"}}}
	reached := q.Since
	resp, err := c.do(ctx, rq)
	if err != nil {
		return reached, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 32<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		var ev wire.Event
		if err := json.Unmarshal(line, &ev); err != nil {
			if ctx.Err() != nil {
				// The caller ended the read: a line cut short by that is not the server's.
				return reached, ctx.Err()
			}
			return reached, c.fail(rq, fmt.Errorf("decode event: %w", err))
		}
		if ev.ID != "" {
			reached = ev.ID
		}
		if ev.Type == "heartbeat" {
			continue
		}
		if err := fn(ev); err != nil {
			return reached, err
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		return reached, c.fail(rq, err)
	}
	return reached, ctx.Err()
}
