package dispatch_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"oj/core/clock"
	"oj/core/job"
	"oj/core/store"
	"oj/core/wire"
)

const callbackSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// received is one request a callback receiver saw.
type received struct {
	method, contentType, id, timestamp, signature string
	body                                          []byte
}

// callbackReceiver answers each request with the next status of statuses (the last one
// repeating) and keeps what it saw.
func callbackReceiver(t *testing.T, statuses ...int) (*httptest.Server, func() []received) {
	var mu sync.Mutex
	var got []received
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, received{method: r.Method, contentType: r.Header.Get("Content-Type"),
			id: r.Header.Get("webhook-id"), timestamp: r.Header.Get("webhook-timestamp"),
			signature: r.Header.Get("webhook-signature"), body: body})
		status := statuses[min(len(got), len(statuses))-1]
		mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []received {
		mu.Lock()
		defer mu.Unlock()
		return append([]received(nil), got...)
	}
}

// verify checks a Standard Webhooks signature as a receiver would.
func verify(t *testing.T, r received) {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(callbackSecret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(r.id + "." + r.timestamp + "."))
	mac.Write(r.body)
	if want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)); r.signature != want {
		t.Fatalf("signature %q, want %q", r.signature, want)
	}
}

// endRun submits a run with a callback to url and finishes it with one result.
func (h *hookEnv) endRun(url string, now time.Time) string {
	h.t.Helper()
	ctx := context.Background()
	spec, _ := job.DefaultRunsConfig().Spec([]string{"in"}, 0, 0)
	id, err := store.SubmitRun(ctx, h.db, store.NewRun{Language: "c11", Source: "x", Spec: spec, TraceID: "t",
		PublicToken: "judge0-capability-" + strings.Repeat("x", 8), Callback: url, Origin: store.OriginJudge0})
	if err != nil {
		h.t.Fatal(err)
	}
	if n := h.count(`SELECT count(*) FROM run_callbacks`); n != 0 {
		h.t.Fatalf("%d callbacks before the run ended", n)
	}
	res, err := store.ClaimBatch(ctx, h.db, []string{id}, "w", now, time.Minute, nil)
	if err != nil || res[0].Outcome != store.Claimed {
		h.t.Fatalf("claim: %+v %v", res, err)
	}
	errs, err := store.FinalizeBatch(ctx, h.db, "w", []store.Result{{Lease: store.Lease{ID: id, Attempt: res[0].Task.Attempt},
		Outcome: job.Outcome{Runs: []job.RunResult{{Index: 1, Status: job.RunOK, Stdout: "out\xff"}}}}}, now)
	if err != nil || errs[0] != nil {
		h.t.Fatalf("finalize: %v %v", errs, err)
	}
	return id
}

// A run that ends with a callback URL has its result PUT there, signed with
// webhooks.callback_secret; a 500 is retried on the schedule with the same body and
// webhook-id, and the 2xx that follows delivers it. Without a renderer the body is the
// run as oj's API shows it.
func TestRunCallbackIsRetriedAfterA500AndSigned(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Now())
	h := newHookEnv(t, clk)
	h.cfg.Webhooks.CallbackSecret = callbackSecret
	srv, got := callbackReceiver(t, http.StatusInternalServerError, http.StatusNoContent)
	d, m := h.dispatcher()
	ctx := context.Background()
	id := h.endRun(srv.URL+"/judge0/callback", clk.Now())

	if n, err := d.SendRunCallbacksOnce(ctx); err != nil || n != 1 {
		t.Fatalf("first round: %d %v", n, err)
	}
	cb, err := store.GetRunCallback(ctx, h.db, id)
	if err != nil || cb.Status != store.DeliveryPending || cb.Attempts != 1 || cb.LastStatus == nil || *cb.LastStatus != 500 ||
		!cb.NextTry.After(clk.Now()) || cb.Payload == nil {
		t.Fatalf("after the 500: %+v %v", cb, err)
	}
	if n, err := d.SendRunCallbacksOnce(ctx); err != nil || n != 0 {
		t.Fatalf("a round before the retry is due: %d %v", n, err)
	}
	clk.Advance(10 * time.Second)
	if n, err := d.SendRunCallbacksOnce(ctx); err != nil || n != 1 {
		t.Fatalf("second round: %d %v", n, err)
	}
	cb, err = store.GetRunCallback(ctx, h.db, id)
	if err != nil || cb.Status != store.DeliveryDelivered || cb.Attempts != 2 || cb.DeliveredAt == nil {
		t.Fatalf("after the 204: %+v %v", cb, err)
	}
	reqs := got()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for _, r := range reqs {
		if r.method != http.MethodPut || r.contentType != "application/json" || r.id != cb.ID {
			t.Fatalf("request %+v", r)
		}
		verify(t, r)
	}
	if string(reqs[0].body) != string(reqs[1].body) {
		t.Fatal("the retry sent another body")
	}
	var run wire.Run
	if err := json.Unmarshal(reqs[1].body, &run); err != nil || run.ID != id || run.State != "finished" ||
		run.Origin != store.OriginJudge0 || run.PublicToken == "" || len(run.Results) != 1 {
		t.Fatalf("body %s: %v", reqs[1].body, err)
	}
	if v := testutil.ToFloat64(m.RunCallbackTries.WithLabelValues("retry")) + testutil.ToFloat64(m.RunCallbackTries.WithLabelValues("delivered")); v != 2 {
		t.Fatalf("tries counted: %v", v)
	}
	// Delivered: nothing more is due, ever.
	clk.Advance(24 * time.Hour)
	if n, err := d.SendRunCallbacksOnce(ctx); err != nil || n != 0 {
		t.Fatalf("a round after delivery: %d %v", n, err)
	}
}

// The face's renderer makes the body, once; its content type goes with it. A run whose
// body it refuses is given up, not retried. Retention keeps a run until its callback's
// body is rendered.
func TestRunCallbackBodyIsTheFacesAndRenderedOnce(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Now())
	h := newHookEnv(t, clk)
	var renders int
	var mu sync.Mutex
	h.cfg.RunCallbackBody = func(_ context.Context, run *store.Submission) (string, []byte, error) {
		mu.Lock()
		defer mu.Unlock()
		renders++
		if strings.HasSuffix(run.Callback, "/refused") {
			return "", nil, errors.New("cannot render")
		}
		return "application/vnd.test+json", []byte(`{"token":"` + run.PublicToken + `"}`), nil
	}
	srv, got := callbackReceiver(t, http.StatusBadGateway, http.StatusOK)
	d, m := h.dispatcher()
	ctx := context.Background()
	id := h.endRun(srv.URL+"/ok", clk.Now())

	// Not rendered yet: retention keeps the run, however old.
	if n, err := store.PruneRuns(ctx, h.db, time.Minute, clk.Now().Add(48*time.Hour), 100); err != nil || n != 0 {
		t.Fatalf("pruned a run whose callback has no body yet: %d %v", n, err)
	}
	if _, err := d.SendRunCallbacksOnce(ctx); err != nil {
		t.Fatal(err)
	}
	clk.Advance(10 * time.Second)
	if _, err := d.SendRunCallbacksOnce(ctx); err != nil {
		t.Fatal(err)
	}
	reqs := got()
	if len(reqs) != 2 || renders != 1 || reqs[1].contentType != "application/vnd.test+json" ||
		string(reqs[1].body) != `{"token":"judge0-capability-xxxxxxxx"}` || reqs[1].signature != "" {
		t.Fatalf("renders %d, requests %+v", renders, reqs)
	}
	if n, err := store.PruneRuns(ctx, h.db, time.Minute, clk.Now().Add(48*time.Hour), 100); err != nil || n != 1 {
		t.Fatalf("prune after the body was kept: %d %v", n, err)
	}
	if cb, err := store.GetRunCallback(ctx, h.db, id); err != nil || cb.Status != store.DeliveryDelivered {
		t.Fatalf("the callback outlives its run: %+v %v", cb, err)
	}

	h2 := newHookEnv(t, clk)
	h2.cfg.RunCallbackBody = h.cfg.RunCallbackBody
	d2, m2 := h2.dispatcher()
	id2 := h2.endRun(srv.URL+"/refused", clk.Now())
	if _, err := d2.SendRunCallbacksOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if cb, err := store.GetRunCallback(ctx, h2.db, id2); err != nil || cb.Status != store.DeliveryFailed ||
		!strings.Contains(cb.LastError, "cannot render") {
		t.Fatalf("a refused body: %+v %v", cb, err)
	}
	if len(got()) != 2 || testutil.ToFloat64(m2.RunCallbackUnrenderable) != 1 || testutil.ToFloat64(m.RunCallbackUnrenderable) != 0 {
		t.Fatal("a refused body was sent or not counted")
	}
}

// A callback to a private address is refused by the guard unless webhooks.allow_private,
// and failed at the end of its window.
func TestRunCallbackToAPrivateAddressIsRefused(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Now())
	h := newHookEnv(t, clk)
	h.cfg.Webhooks.AllowPrivate = false
	srv, got := callbackReceiver(t, http.StatusOK)
	d, _ := h.dispatcher()
	ctx := context.Background()
	id := h.endRun(srv.URL, clk.Now())
	if _, err := d.SendRunCallbacksOnce(ctx); err != nil {
		t.Fatal(err)
	}
	cb, err := store.GetRunCallback(ctx, h.db, id)
	if err != nil || cb.Status != store.DeliveryPending || cb.LastStatus != nil || cb.LastError == "" || len(got()) != 0 {
		t.Fatalf("a callback to loopback: %+v %v (%d requests)", cb, err, len(got()))
	}
	clk.Advance(h.cfg.Webhooks.Window() + time.Hour)
	if _, err := d.SendRunCallbacksOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if cb, err := store.GetRunCallback(ctx, h.db, id); err != nil || cb.Status != store.DeliveryFailed {
		t.Fatalf("past its window: %+v %v", cb, err)
	}
	if b, err := store.RunCallbackCounts(ctx, h.db); err != nil || b.Failed != 1 || b.Pending != 0 {
		t.Fatalf("backlog: %+v %v", b, err)
	}
}
