package api_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"oj/core/api"
	"oj/core/api/client"
	"oj/core/wire"
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
// Retry-After to callers with a run among them; a caller with none waiting is still
// accepted (five of alice's runs never shut bob out); submits are not refused.
func TestRunsQueuedCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true, limits: func(l *api.Limits) {
		l.RunMaxQueued, l.RunMaxLivePerUser = 5, 0
	}})
	for i := 0; i < 5; i++ {
		if ce := runRefusal(t, e.alice); ce != nil {
			t.Fatalf("alice's run %d: %v", i+1, ce)
		}
	}
	ce := runRefusal(t, e.alice)
	if ce == nil || ce.Status != http.StatusTooManyRequests || ce.Code != "backlog_full" || ce.RetryAfter <= 0 ||
		!strings.Contains(ce.Message, "api.limits.run_max_queued") {
		t.Fatalf("a run over the queued cap: %+v", ce)
	}
	if ce := runRefusal(t, e.bob); ce != nil {
		t.Fatalf("bob's first run, with nothing of his waiting: %v", ce)
	}
	if ce := runRefusal(t, e.bob); ce == nil || ce.Code != "backlog_full" {
		t.Fatalf("bob's second run over the cap: %+v", ce)
	}
	e.submit(e.alice, "print(1)")
}

// A token may have at most api.limits.run_max_live_per_user runs queued or running: past
// it, 429 too_many_live with Retry-After and the key in the message, and another
// token's runs are accepted. A token's own run_max_live replaces the bound, and the
// message names it.
func TestRunsLiveBoundPerToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true, limits: func(l *api.Limits) { l.RunMaxLivePerUser = 2 }})
	for i := 0; i < 2; i++ {
		if ce := runRefusal(t, e.alice); ce != nil {
			t.Fatalf("alice's run %d: %v", i+1, ce)
		}
	}
	ce := runRefusal(t, e.alice)
	if ce == nil || ce.Status != http.StatusTooManyRequests || ce.Code != "too_many_live" || ce.RetryAfter <= 0 ||
		!strings.Contains(ce.Message, "api.limits.run_max_live_per_user") {
		t.Fatalf("alice's third run: %+v", ce)
	}
	if ce := runRefusal(t, e.bob); ce != nil {
		t.Fatalf("bob's run: %v", ce)
	}
	four := 4
	created, err := e.admin.CreateToken(context.Background(), wire.TokenCreateRequest{Name: "site", Role: "user", RunMaxLive: &four})
	if err != nil {
		t.Fatal(err)
	}
	if created.Token.RunMaxLive == nil || *created.Token.RunMaxLive != 4 {
		t.Fatalf("the token as created: %+v", created.Token)
	}
	site := client.New(e.http.URL, created.Secret)
	for i := 0; i < 4; i++ {
		if ce := runRefusal(t, site); ce != nil {
			t.Fatalf("the site's run %d: %v", i+1, ce)
		}
	}
	ce = runRefusal(t, site)
	if ce == nil || ce.Code != "too_many_live" || !strings.Contains(ce.Message, "the token's own run_max_live") {
		t.Fatalf("the site's fifth run: %+v", ce)
	}
}
