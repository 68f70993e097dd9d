package api_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"oj/core/api"
)

// openStream opens id's event stream with token and returns its status and the answer,
// left open (the caller closes it).
func (e *env) openStream(ctx context.Context, id, token string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.http.URL+"/api/v1/submissions/"+id+"/events", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	return http.DefaultClient.Do(req)
}

// Event streams are bounded per token and in all: past a bound the answer is 429 with
// Retry-After, to that token only for the per-token bound; while they are open /healthz
// answers and submissions are judged; closed streams give their place back.
func TestEventStreamsAreBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true, limits: func(l *api.Limits) { l.MaxStreamsPerToken, l.MaxStreams = 3, 5 }})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	aliceSub, bobSub := e.submit(e.alice, "print(1)"), e.submit(e.bob, "print(2)")
	var open []*http.Response
	defer func() {
		for _, r := range open {
			r.Body.Close()
		}
	}()
	expect := func(who, id, token string, want int, code string) {
		t.Helper()
		r, err := e.openStream(ctx, id, token)
		if err != nil {
			t.Fatal(err)
		}
		if r.StatusCode != want {
			b, _ := io.ReadAll(r.Body)
			r.Body.Close()
			t.Fatalf("%s: %d %s, want %d", who, r.StatusCode, b, want)
		}
		if want == http.StatusOK {
			open = append(open, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.Header.Get("Retry-After") == "" || !strings.Contains(string(b), code) {
			t.Fatalf("%s: refused with %q, Retry-After %q", who, b, r.Header.Get("Retry-After"))
		}
	}
	for range 3 {
		expect("alice's streams", aliceSub, tokenOf(e.alice), http.StatusOK, "")
	}
	expect("alice's fourth stream", aliceSub, tokenOf(e.alice), http.StatusTooManyRequests, "api.limits.max_streams_per_token")
	expect("bob's first stream", bobSub, tokenOf(e.bob), http.StatusOK, "")
	expect("bob's second stream", bobSub, tokenOf(e.bob), http.StatusOK, "")
	expect("a stream past the total", bobSub, tokenOf(e.bob), http.StatusTooManyRequests, "api.limits.max_streams")
	if code, _, _ := e.raw("GET", "/healthz", "", nil, nil); code != http.StatusOK {
		t.Fatalf("/healthz with every stream taken: %d", code)
	}
	// Judging goes on: the streams end with their submissions' verdicts, and their places
	// are free again.
	e.apienv.StartWorker(nil)
	for _, r := range open {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			t.Fatal(err)
		}
	}
	open = nil
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, err := e.openStream(ctx, aliceSub, tokenOf(e.alice))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, r.Body) // judged: the stream ends at once
		r.Body.Close()
		if r.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a stream after the others ended: %d", r.StatusCode)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
