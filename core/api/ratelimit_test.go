package api_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"oj/core/api"
	"oj/core/api/client"
	"oj/core/api/wire"
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

func TestBacklogThresholdGets429(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true, limits: func(l *api.Limits) { l.BacklogMaxQueued = 3 }})
	for i := 0; i < 3; i++ {
		e.submit(e.alice, "print(1)")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, h, body := e.raw("POST", "/api/v1/submissions", tokenOf(e.alice), submitBody("aplusb", "python3", "x", 0), nil)
		if code == http.StatusTooManyRequests {
			if body["error"].(map[string]any)["code"] != "backlog_full" || h.Get("Retry-After") == "" {
				t.Fatalf("backlog 429 = %v %v", body, h)
			}
			return
		}
		if code != http.StatusAccepted || time.Now().After(deadline) {
			t.Fatalf("submit over the backlog: %d %v", code, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
