package api_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"oj/core/api"
	"oj/core/api/client"
	"oj/core/wire"
)

func TestRateLimitFloodGets429AndEveryAcceptedSubmissionFinishes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{limits: func(l *api.Limits) {
		l.UserRate, l.UserBurst = 20, 10
		l.GlobalRate, l.GlobalBurst = 30, 15
	}})
	ctx := context.Background()
	var mu sync.Mutex
	var accepted []string
	codes := map[int]int{}
	var retryAfter []int
	var wg sync.WaitGroup
	for _, c := range []*client.Client{e.alice, e.bob} {
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 25; i++ {
					res, err := c.Submit(ctx, wire.SubmitRequest{ProblemID: "aplusb", Language: "python3", Source: "print(1)"}, "")
					mu.Lock()
					var ae *client.Error
					switch {
					case err == nil:
						codes[res.Status]++
						accepted = append(accepted, res.ID())
					case errors.As(err, &ae):
						codes[ae.Status]++
						if ae.Status == 429 {
							retryAfter = append(retryAfter, int(ae.RetryAfter/time.Second))
						}
					default:
						t.Error(err)
					}
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if codes[429] == 0 || codes[202] == 0 {
		t.Fatalf("codes = %v, want both 202 and 429", codes)
	}
	for code := range codes {
		if code != 202 && code != 429 {
			t.Fatalf("codes = %v: unexpected %d", codes, code)
		}
	}
	for _, ra := range retryAfter {
		if ra < 1 || ra > 2 {
			t.Fatalf("Retry-After %d s, want 1..2 for buckets refilling at 20-30/s", ra)
		}
	}
	for _, id := range accepted {
		e.waitTerminal(id, 30*time.Second)
	}
	t.Logf("codes %v", codes)
}

// Over the backlog threshold, the refusals fall on the users holding the backlog: alice,
// whose three submissions wait, is refused; bob, with nothing waiting, is accepted.
func TestBacklogThresholdRefusesThoseHoldingIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true, limits: func(l *api.Limits) { l.BacklogMaxQueued = 3 }})
	for i := 0; i < 3; i++ {
		e.submit(e.alice, "print(1)")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, h, body := e.raw("POST", "/api/v1/submissions", tokenOf(e.alice), submitBody("aplusb", "python3", "x", 0), nil)
		if code == http.StatusTooManyRequests {
			msg, _ := body["error"].(map[string]any)["message"].(string)
			if body["error"].(map[string]any)["code"] != "backlog_full" || h.Get("Retry-After") == "" ||
				!strings.Contains(msg, "of your submissions are still waiting to be judged") {
				t.Fatalf("backlog 429 = %v %v", body, h)
			}
			break
		}
		if code != http.StatusAccepted || time.Now().After(deadline) {
			t.Fatalf("submit over the backlog: %d %v", code, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The queue is still over its threshold; bob holds none of it.
	code, _, body := e.raw("POST", "/api/v1/submissions", tokenOf(e.bob), submitBody("aplusb", "python3", "x", 0), nil)
	if code != http.StatusAccepted {
		t.Fatalf("bob, with nothing waiting, over the backlog: %d %v", code, body)
	}
	// Now bob has one waiting too.
	code, _, body = e.raw("POST", "/api/v1/submissions", tokenOf(e.bob), submitBody("aplusb", "python3", "y", 0), nil)
	if code != http.StatusTooManyRequests {
		t.Fatalf("bob's second submit over the backlog: %d %v", code, body)
	}
}

// A token has at most max_live_per_user submissions queued or running: the next is a 429
// that names the bound and its key, to that user only; admins have their own bound.
func TestLiveSubmissionsPerTokenAreBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true, limits: func(l *api.Limits) { l.MaxLivePerUser = 3 }})
	for i := 0; i < 3; i++ {
		e.submit(e.alice, fmt.Sprintf("print(%d)", i))
	}
	code, h, body := e.raw("POST", "/api/v1/submissions", tokenOf(e.alice), submitBody("aplusb", "python3", "x", 0), nil)
	errBody, _ := body["error"].(map[string]any)
	msg, _ := errBody["message"].(string)
	if code != http.StatusTooManyRequests || errBody["code"] != "too_many_live" || h.Get("Retry-After") == "" ||
		!strings.Contains(msg, "api.limits.max_live_per_user") || !strings.Contains(msg, "you have 3 submissions queued or running") {
		t.Fatalf("alice's fourth live submission: %d %v %v", code, body, h)
	}
	// Concurrent submits of one user cannot slip past the bound together.
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted := 0
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if code, _, _ := e.raw("POST", "/api/v1/submissions", tokenOf(e.bob), submitBody("aplusb", "python3", fmt.Sprint(i), 0), nil); code == http.StatusAccepted {
				mu.Lock()
				accepted++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if accepted != 3 {
		t.Fatalf("8 concurrent submits of bob: %d accepted, want exactly 3", accepted)
	}
	// Admins are not bound by the users' limit (max_live_per_admin is 0: none).
	for i := 0; i < 5; i++ {
		e.submit(e.admin, fmt.Sprintf("print(%d)", i))
	}
}
