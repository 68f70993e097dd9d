package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"oj/core/wire"
)

// RunResult is a run's answer: Run when it finished within wait_ms (status 200), else
// Accepted (202) with the limits applied.
type RunResult struct {
	Status   int
	Accepted *wire.RunAccepted
	Run      *wire.Run
}

// ID is the run's id, whichever form the answer took.
func (r *RunResult) ID() string {
	if r.Run != nil {
		return r.Run.ID
	}
	if r.Accepted != nil {
		return r.Accepted.ID
	}
	return ""
}

// Run is POST /api/v1/runs.
func (c *Client) Run(ctx context.Context, req wire.RunRequest) (*RunResult, error) {
	rq := request{method: http.MethodPost, path: "/api/v1/runs", body: req}
	resp, err := c.do(ctx, rq)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	res := &RunResult{Status: resp.StatusCode}
	dec := json.NewDecoder(resp.Body)
	if resp.StatusCode == http.StatusOK {
		res.Run = &wire.Run{}
		err = dec.Decode(res.Run)
	} else {
		res.Accepted = &wire.RunAccepted{}
		err = dec.Decode(res.Accepted)
	}
	if err != nil {
		return nil, c.fail(rq, fmt.Errorf("decode answer: %w", err))
	}
	return res, nil
}

// GetRun is GET /api/v1/runs/{id}.
func (c *Client) GetRun(ctx context.Context, id string) (*wire.Run, error) {
	var out wire.Run
	return &out, c.call(ctx, request{method: http.MethodGet, path: "/api/v1/runs/" + esc(id)}, &out)
}
