package api_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"oj/core/api"
	"oj/core/api/client"
	"oj/core/api/wire"
)

// runRefusal posts a run as c and returns the API's refusal (nil when accepted).
func runRefusal(t *testing.T, c *client.Client) *client.Error {
	t.Helper()
	_, err := c.Run(context.Background(), wire.RunRequest{Language: "python3", Source: "print(1)"})
	if err == nil {
		return nil
	}
	var ce *client.Error
	if !errors.As(err, &ce) {
		t.Fatal(err)
	}
	return ce
}

// Runs have their own bucket: a caller whose run bucket is empty gets 429 with
// Retry-After for runs, and still submits; the submits' bucket is not spent by runs.
func TestRunsHaveTheirOwnBucket(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true, limits: func(l *api.Limits) {
		l.RunRate, l.RunBurst = 0.01, 2
		l.UserRate, l.UserBurst = 0.01, 1
	}})
	for i := 0; i < 2; i++ {
		if ce := runRefusal(t, e.alice); ce != nil {
			t.Fatalf("run %d: %v", i+1, ce)
		}
	}
	ce := runRefusal(t, e.alice)
	if ce == nil || ce.Status != http.StatusTooManyRequests || ce.Code != "rate_limited" || ce.RetryAfter <= 0 {
		t.Fatalf("a run past the bucket: %+v", ce)
	}
	e.submit(e.alice, "print(1)") // the submits' one token is still there
	if ce := runRefusal(t, e.bob); ce != nil {
		t.Fatalf("another user's run: %v", ce)
	}
}

// While api.limits.run_max_queued runs wait for a worker, runs are refused with 429 and
// Retry-After, whoever asks; submits are not.
func TestRunsQueuedCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true, limits: func(l *api.Limits) { l.RunMaxQueued = 2 }})
	for _, c := range []*client.Client{e.alice, e.bob} {
		if ce := runRefusal(t, c); ce != nil {
			t.Fatal(ce)
		}
	}
	ce := runRefusal(t, e.alice)
	if ce == nil || ce.Status != http.StatusTooManyRequests || ce.Code != "backlog_full" || ce.RetryAfter <= 0 {
		t.Fatalf("a run over the queued cap: %+v", ce)
	}
	e.submit(e.alice, "print(1)")
}
