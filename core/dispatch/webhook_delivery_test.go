package dispatch_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"oj/core/clock"
	"oj/core/store"
)

// A dispatcher stopped while its fan-out's try waits for an answer writes the delivery
// in flight, leased to itself; once the lease ends another dispatcher's senders try it
// again: the receiver sees the same webhook-id twice, and the delivery is delivered,
// never lost.
func TestDeliveryOfAKilledDispatcherIsTriedAgainAfterItsLease(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t, nil)
	h.cfg.Webhooks.Timeout = 500 * time.Millisecond
	h.cfg.Webhooks.Lease = time.Second
	var mu sync.Mutex
	var ids []string
	arrived := make(chan struct{}, 10)
	first := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The body read to its end: only then does the server notice a client gone and
		// end the request's context.
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		ids = append(ids, r.Header.Get("webhook-id"))
		n := len(ids)
		mu.Unlock()
		arrived <- struct{}{}
		if n == 1 {
			once.Do(func() { close(first) })
			<-r.Context().Done() // the first try never gets an answer: its dispatcher dies
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	ep := h.endpoint(srv.URL, nil, nil)
	h.submit(nil)

	killed, _ := h.dispatcher()
	ctx, kill := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = killed.Run(ctx) }()
	select {
	case <-first:
	case <-time.After(20 * time.Second):
		kill()
		t.Fatal("the receiver saw no try within 20 s")
	}
	kill() // while the try waits for its answer
	<-done
	var status, owner string
	var attempts int
	if err := h.db.QueryRow(context.Background(), `SELECT status, lease_owner, attempts FROM webhook_deliveries
		WHERE endpoint_id = $1`, ep).Scan(&status, &owner, &attempts); err != nil {
		t.Fatal(err)
	}
	if status != store.DeliveryPending || owner != killed.Name() || attempts != 1 {
		t.Fatalf("after the kill: status %s, lease owner %q, attempts %d; want pending, leased by the dead one, 1",
			status, owner, attempts)
	}

	next, _ := h.dispatcher()
	ctx2, stop := context.WithCancel(context.Background())
	defer stop()
	go func() { _ = next.Run(ctx2) }()
	deadline := time.Now().Add(20 * time.Second)
	for h.count(`SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered'`) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the delivery of the killed dispatcher was not delivered within 20 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ids) != 2 || ids[0] != ids[1] || ids[0] == "" {
		t.Fatalf("webhook-ids received %v, want the same one twice", ids)
	}
	if n := h.count(`SELECT attempts FROM webhook_deliveries WHERE endpoint_id = $1`, ep); n != 2 {
		t.Fatalf("attempts %d, want 2", n)
	}
}

// An endpoint whose every try fails for the whole window is disabled, audited and
// counted; its delivery is failed and kept. The clock is moved, not waited for.
func TestEndpointFailingForTheWholeWindowIsDisabled(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Now())
	h := newHookEnv(t, clk)
	h.cfg.Webhooks.Schedule = []time.Duration{time.Minute, time.Minute}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "down for maintenance", http.StatusInternalServerError)
	}))
	defer srv.Close()
	ep := h.endpoint(srv.URL, nil, nil)
	d, m := h.dispatcher()
	h.submit(nil)
	h.fanOutUntil(d, 1)
	try := func(want int) {
		t.Helper()
		n, err := d.SendWebhooksOnce(context.Background())
		if err != nil || n != want {
			t.Fatalf("tried %d (%v), want %d", n, err, want)
		}
	}
	// The fan-out made the first try (before it wrote the delivery).
	try(0) // not due yet
	clk.Advance(75 * time.Second)
	try(1)
	if n := h.count(`SELECT count(*) FROM webhook_endpoints WHERE enabled`); n != 1 {
		t.Fatal("disabled before the window's end")
	}
	clk.Advance(50 * time.Second) // past the window: the last try, at its expiry
	try(1)
	var status, lastErr, reason string
	var attempts int
	var enabled bool
	if err := h.db.QueryRow(context.Background(), `SELECT d.status, d.attempts, d.last_error, e.enabled, e.disabled_reason
		FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.id = $1`, ep).
		Scan(&status, &attempts, &lastErr, &enabled, &reason); err != nil {
		t.Fatal(err)
	}
	if status != store.DeliveryFailed || attempts != 3 || lastErr != "HTTP 500: down for maintenance" || enabled || reason == "" {
		t.Fatalf("status %s, attempts %d, last error %q, enabled %v, reason %q", status, attempts, lastErr, enabled, reason)
	}
	if n := h.count(`SELECT count(*) FROM audit_log WHERE action = 'webhook_disable' AND actor = 'dispatcher'
		AND params->>'id' = $1 AND counts->>'disabled' = '1'`, ep); n != 1 {
		t.Fatalf("%d audit rows of the disabling, want 1", n)
	}
	for outcome, want := range map[string]float64{"retry": 2, "failed": 1, "delivered": 0} {
		if got := testutil.ToFloat64(m.WebhookDeliveries.WithLabelValues(outcome)); got != want {
			t.Errorf("oj_webhook_deliveries_total{outcome=%q} %v, want %v", outcome, got, want)
		}
	}
	if got := testutil.ToFloat64(m.WebhookEndpointsDisabled.WithLabelValues("failing")); got != 1 {
		t.Errorf("oj_webhook_endpoints_disabled_total{reason=failing} %v, want 1", got)
	}
	// Disabled: nothing more is fanned out to it or tried.
	h.submit(nil)
	if _, _, err := d.FanOutOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	try(0)
	// Redelivered after enabling: the same webhook-id, a new window.
	if _, err := store.EnableWebhookEndpoint(context.Background(), h.db, ep, clk.Now()); err != nil {
		t.Fatal(err)
	}
	var id string
	if err := h.db.QueryRow(context.Background(), `SELECT id::text FROM webhook_deliveries WHERE endpoint_id = $1`, ep).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if err := store.RedeliverWebhook(context.Background(), h.db, ep, id, clk.Now(), time.Hour); err != nil {
		t.Fatal(err)
	}
	try(1)
	if n := h.count(`SELECT count(*) FROM webhook_deliveries WHERE id = $1 AND status = 'pending' AND attempts = 1`, id); n != 1 {
		t.Fatal("the redelivered delivery is not pending with one new attempt")
	}
}

// A guarded dispatcher refuses a loopback receiver: the try fails without reaching it.
func TestDispatcherWithoutAllowPrivateRefusesLoopback(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t, nil)
	h.cfg.Webhooks.AllowPrivate = false
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	defer srv.Close()
	h.endpoint(srv.URL, nil, nil)
	d, _ := h.dispatcher()
	h.submit(nil)
	h.fanOutUntil(d, 1)
	if _, err := d.SendWebhooksOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	var lastErr string
	if err := h.db.QueryRow(context.Background(), `SELECT last_error FROM webhook_deliveries`).Scan(&lastErr); err != nil {
		t.Fatal(err)
	}
	if hits.Load() != 0 || lastErr != "refused: 127.0.0.1 is a loopback address (webhooks.allow_private is off)" {
		t.Fatalf("receiver hit %d times, last error %q", hits.Load(), lastErr)
	}
}

// verifySignature is the receiver's side of Standard Webhooks, written here from the
// specification rather than with the sender's code: the HMAC-SHA256 of
// "{webhook-id}.{webhook-timestamp}.{body}" under the secret's base64-decoded key, in
// base64, is one of the header's space-separated "v1,<signature>" entries.
func verifySignature(secret string, h http.Header, body []byte) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.", h.Get("webhook-id"), h.Get("webhook-timestamp"))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		version, b64, ok := strings.Cut(sig, ",")
		got, err := base64.StdEncoding.DecodeString(b64)
		if ok && version == "v1" && err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

// A receiver that answers 500, then does not answer in time, then 200 gets the event
// three times under one webhook-id, each signed so that its own HMAC code verifies it,
// and the delivery ends delivered after three tries. The clock is moved between tries.
func TestDeliveryThrough500AndATimeoutTo200KeepsItsID(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Now())
	h := newHookEnv(t, clk)
	h.cfg.Webhooks.Timeout = 300 * time.Millisecond
	var mu sync.Mutex
	type got struct {
		header http.Header
		body   []byte
	}
	var tries []got
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		tries = append(tries, got{r.Header.Clone(), body})
		n := len(tries)
		mu.Unlock()
		switch n {
		case 1:
			http.Error(w, "boom", http.StatusInternalServerError)
		case 2:
			<-r.Context().Done() // no answer: the sender's timeout ends it
		default:
			w.WriteHeader(http.StatusOK)
		}
	}))
	defer srv.Close()
	ep := h.endpoint(srv.URL, []string{"submission.queued"}, nil)
	var secret string
	if err := h.db.QueryRow(context.Background(), `SELECT secret FROM webhook_endpoints WHERE id = $1`, ep).Scan(&secret); err != nil {
		t.Fatal(err)
	}
	d, m := h.dispatcher()
	sub := h.submit(map[string]string{"user": "u7"})
	h.fanOutUntil(d, 1) // the first try, the fan-out's: 500
	for i, advance := range []time.Duration{10 * time.Second, 2 * time.Minute} {
		clk.Advance(advance)
		if n, err := d.SendWebhooksOnce(context.Background()); err != nil || n != 1 {
			t.Fatalf("try %d: tried %d (%v), want 1", i+2, n, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(tries) != 3 {
		t.Fatalf("%d tries reached the receiver, want 3", len(tries))
	}
	var deliveryID string
	if err := h.db.QueryRow(context.Background(), `SELECT id::text FROM webhook_deliveries WHERE endpoint_id = $1
		AND status = 'delivered' AND attempts = 3 AND last_status = 200`, ep).Scan(&deliveryID); err != nil {
		t.Fatalf("the delivery is not delivered after three tries: %v", err)
	}
	for i, tr := range tries {
		if id := tr.header.Get("webhook-id"); id != deliveryID {
			t.Errorf("try %d: webhook-id %q, want %q on every try", i+1, id, deliveryID)
		}
		if !verifySignature(secret, tr.header, tr.body) {
			t.Errorf("try %d: the signature %q does not verify", i+1, tr.header.Get("webhook-signature"))
		}
		var ev struct {
			Type string `json:"type"`
			Data struct {
				ID       string            `json:"id"`
				Metadata map[string]string `json:"metadata"`
			} `json:"data"`
		}
		if err := json.Unmarshal(tr.body, &ev); err != nil || ev.Type != "submission.queued" || ev.Data.ID != sub ||
			ev.Data.Metadata["user"] != "u7" {
			t.Errorf("try %d: body %s", i+1, tr.body)
		}
	}
	// A tampered body does not verify: the check above is not vacuous.
	if verifySignature(secret, tries[2].header, append([]byte(" "), tries[2].body...)) {
		t.Error("a tampered body verifies")
	}
	for outcome, want := range map[string]float64{"retry": 2, "delivered": 1} {
		if got := testutil.ToFloat64(m.WebhookDeliveries.WithLabelValues(outcome)); got != want {
			t.Errorf("oj_webhook_deliveries_total{outcome=%q} %v, want %v", outcome, got, want)
		}
	}
}

// 410 Gone disables the endpoint at once: audited, counted, the delivery failed and kept.
func TestGoneDisablesTheEndpoint(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusGone)
	}))
	defer srv.Close()
	ep := h.endpoint(srv.URL, nil, nil)
	d, m := h.dispatcher()
	h.submit(nil)
	h.fanOutUntil(d, 1) // the fan-out's own try is answered 410
	var enabled bool
	var reason, status string
	if err := h.db.QueryRow(context.Background(), `SELECT e.enabled, e.disabled_reason, d.status FROM webhook_endpoints e
		JOIN webhook_deliveries d ON d.endpoint_id = e.id WHERE e.id = $1`, ep).Scan(&enabled, &reason, &status); err != nil {
		t.Fatal(err)
	}
	if enabled || reason != store.ReasonGone || status != store.DeliveryFailed {
		t.Fatalf("after a 410: enabled %v, reason %q, delivery %s", enabled, reason, status)
	}
	if n := h.count(`SELECT count(*) FROM audit_log WHERE action = 'webhook_disable' AND actor = 'dispatcher'
		AND params->>'id' = $1`, ep); n != 1 {
		t.Fatalf("%d audit rows of the disabling, want 1", n)
	}
	if got := testutil.ToFloat64(m.WebhookEndpointsDisabled.WithLabelValues("gone")); got != 1 {
		t.Errorf("oj_webhook_endpoints_disabled_total{reason=gone} %v, want 1", got)
	}
}
