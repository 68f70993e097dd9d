package dispatch_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"oj/core/clock"
	"oj/core/dispatch"
	"oj/core/job"
	"oj/core/store"
	"oj/core/testenv"
)

// Webhooks on real PostgreSQL, without the judging pipeline: submissions are written
// (each one's "submission.queued" event is what the fan-out reads) and the dispatcher's
// webhook parts are driven step by step, or run whole where a kill is the point.

type hookEnv struct {
	t   *testing.T
	db  *pgxpool.Pool
	cfg dispatch.Config
	clk clock.Clock
}

func newHookEnv(t *testing.T, clk clock.Clock) *hookEnv {
	t.Helper()
	if clk == nil {
		clk = clock.Real{}
	}
	cfg := dispatch.DefaultConfig()
	cfg.RetryBase, cfg.RetryMax = 10*time.Millisecond, 50*time.Millisecond
	cfg.Webhooks.AllowPrivate = true
	cfg.Webhooks.Timeout = 2 * time.Second
	cfg.Webhooks.Lease = 5 * time.Second
	cfg.Webhooks.PollInterval = 50 * time.Millisecond
	return &hookEnv{t: t, db: testenv.DB(t), cfg: cfg, clk: clk}
}

func (h *hookEnv) dispatcher() (*dispatch.Dispatcher, *dispatch.Metrics) {
	m := dispatch.NewMetrics(nil)
	return dispatch.New(h.cfg, h.db, testenv.Streams(h.t, testenv.RedisAddr(h.t)), h.clk,
		slog.New(slog.NewTextHandler(io.Discard, nil)), m), m
}

func (h *hookEnv) endpoint(url string, types []string, meta map[string]string) string {
	h.t.Helper()
	ep, err := store.CreateWebhookEndpoint(context.Background(), h.db, store.NewWebhookEndpoint{URL: url, EventTypes: types,
		Metadata: meta, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", CreatedBy: "test", Now: h.clk.Now()})
	if err != nil {
		h.t.Fatal(err)
	}
	return ep.ID
}

func (h *hookEnv) submit(meta map[string]string) string {
	h.t.Helper()
	id, err := store.Submit(context.Background(), h.db, store.NewSubmission{ProblemID: "aplusb", ProblemVersion: 1,
		Language: "python3", Lane: job.LaneLight, Source: "print(1)", TraceID: "t", Metadata: meta})
	if err != nil {
		h.t.Fatal(err)
	}
	return id
}

func (h *hookEnv) count(sql string, args ...any) int {
	h.t.Helper()
	var n int
	if err := h.db.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		h.t.Fatal(err)
	}
	return n
}

// settle waits until every event written so far is behind the feed's head. Another
// test's open transaction holds the head back, and an endpoint starts at the head: an
// event not yet behind it is still its to receive.
func (h *hookEnv) settle() {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for h.count(`SELECT count(*) FROM events WHERE txid >= pg_snapshot_xmin(pg_current_snapshot())`) > 0 {
		if time.Now().After(deadline) {
			h.t.Fatal("the feed's head did not pass the events written within 20 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// fanOutUntil fans out until n deliveries exist. Another test's open transaction holds
// the feed's head back (store.ReadFeed), so it polls.
func (h *hookEnv) fanOutUntil(d *dispatch.Dispatcher, n int) {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, _, err := d.FanOutOnce(context.Background()); err != nil {
			h.t.Fatal(err)
		}
		got := h.count(`SELECT count(*) FROM webhook_deliveries`)
		if got == n {
			return
		}
		if got > n || time.Now().After(deadline) {
			h.t.Fatalf("%d deliveries, want %d", got, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An endpoint gets the events after its registration, of its types, about submissions
// with its metadata; one fan-out per event and endpoint, however often it runs.
func TestFanOutWritesOneDeliveryPerEventAndEndpoint(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t, nil)
	d, m := h.dispatcher()
	h.submit(nil) // before every endpoint: nobody's
	h.settle()
	all := h.endpoint("http://127.0.0.1:9/all", nil, nil)
	queued := h.endpoint("http://127.0.0.1:9/queued", []string{"submission.queued"}, nil)
	contest := h.endpoint("http://127.0.0.1:9/contest", nil, map[string]string{"contest": "c1"})
	finished := h.endpoint("http://127.0.0.1:9/finished", []string{"submission.finished"}, nil)
	h.submit(map[string]string{"contest": "c1", "user": "u1"})
	h.submit(map[string]string{"contest": "c2"})
	h.submit(nil)
	h.fanOutUntil(d, 3+3+1+0)
	for i := 0; i < 3; i++ {
		if _, _, err := d.FanOutOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	for ep, want := range map[string]int{all: 3, queued: 3, contest: 1, finished: 0} {
		if n := h.count(`SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1`, ep); n != want {
			t.Errorf("endpoint %s: %d deliveries, want %d", ep, n, want)
		}
	}
	if got := testutil.ToFloat64(m.WebhookFannedOut); got != 7 {
		t.Errorf("oj_webhook_fanned_out_total %v, want 7", got)
	}
	// The payload is the feed's event: its id is the event's cursor, its data the
	// submission with its metadata.
	var payload []byte
	var eventID string
	if err := h.db.QueryRow(context.Background(), `SELECT payload::text, event_id FROM webhook_deliveries
		WHERE endpoint_id = $1`, contest).Scan(&payload, &eventID); err != nil {
		t.Fatal(err)
	}
	var ev struct {
		ID   string `json:"id"`
		Type string `json:"type"`
		Data struct {
			State    string            `json:"state"`
			Metadata map[string]string `json:"metadata"`
		} `json:"data"`
	}
	if err := json.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.ID != eventID || ev.Type != "submission.queued" || ev.Data.State != "queued" || ev.Data.Metadata["user"] != "u1" {
		t.Fatalf("payload %s (event %s)", payload, eventID)
	}
}

// A fan-out that dies after its tries and before its commit leaves neither deliveries
// nor a moved cursor, and holds the cursor until its lease ends; then another dispatcher
// sends the page again under the same webhook-ids and writes each delivery once. Two
// dispatchers fanning out together write each once too.
func TestFanOutCrashLosesNothingAndDuplicatesNothing(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t, nil)
	h.cfg.Webhooks.Timeout, h.cfg.Webhooks.Lease = 500*time.Millisecond, time.Second
	var mu sync.Mutex
	seen := map[string]int{} // webhook-id -> tries that reached the receiver
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		seen[r.Header.Get("webhook-id")]++
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	a, _ := h.dispatcher()
	b, _ := h.dispatcher()
	h.endpoint(srv.URL+"/a", nil, nil)
	h.endpoint(srv.URL+"/b", nil, nil)
	for i := 0; i < 20; i++ {
		h.submit(nil)
	}
	h.settle()
	if err := a.FanOutCrashing(context.Background()); !errors.Is(err, dispatch.ErrCrash) {
		t.Fatalf("crashing fan-out: %v", err)
	}
	if n := h.count(`SELECT count(*) FROM webhook_deliveries`); n != 0 {
		t.Fatalf("%d deliveries after a fan-out that died before its commit, want 0", n)
	}
	if n := h.count(`SELECT count(*) FROM webhook_fanout WHERE id <> 0`); n != 0 {
		t.Fatal("the cursor moved in a fan-out that died before its commit")
	}
	mu.Lock()
	sentByDead := map[string]bool{}
	for id := range seen {
		sentByDead[id] = true
	}
	mu.Unlock()
	if len(sentByDead) != 40 {
		t.Fatalf("the crashed fan-out sent %d webhook-ids, want 40", len(sentByDead))
	}
	// The dead one's lease holds the cursor: b waits for its end.
	if _, active, err := b.FanOutOnce(context.Background()); err != nil || active {
		t.Fatalf("a fan-out during another's lease: active %v, %v; want it to wait", active, err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for h.count(`SELECT count(*) FROM webhook_deliveries`) < 40 {
		if time.Now().After(deadline) {
			t.Fatal("the page of the crashed fan-out was not written within 20 s")
		}
		if _, _, err := b.FanOutOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	for id := range sentByDead {
		if seen[id] != 2 {
			t.Errorf("webhook-id %s reached the receiver %d times, want twice (the crashed page, then its resend)", id, seen[id])
		}
	}
	if len(seen) != 40 {
		t.Errorf("%d webhook-ids in all, want the crashed page's 40", len(seen))
	}
	mu.Unlock()
	if n := h.count(`SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered' AND attempts = 1`); n != 40 {
		t.Fatalf("%d deliveries written delivered at their first try, want 40", n)
	}

	// Two dispatchers at once: each event once to each endpoint.
	for i := 0; i < 20; i++ {
		h.submit(nil)
	}
	var wg sync.WaitGroup
	for _, d := range []*dispatch.Dispatcher{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100 && h.count(`SELECT count(*) FROM webhook_deliveries`) < 80; i++ {
				if _, _, err := d.FanOutOnce(context.Background()); err != nil {
					t.Error(err)
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	h.fanOutUntil(b, 80)
	if n := h.count(`SELECT count(*) FROM (SELECT endpoint_id, event_id FROM webhook_deliveries
		GROUP BY 1, 2 HAVING count(*) > 1) x`); n != 0 {
		t.Fatalf("%d events delivered twice to one endpoint", n)
	}
}

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

// The feed's commit order holds for the fan-out: two transactions commit in the reverse
// order of their event ids while the fan-out runs between them; the late one is not
// skipped, and each gets its one delivery.
func TestFanOutNeverSkipsAnEventCommittedLate(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t, nil)
	d, _ := h.dispatcher()
	ep := h.endpoint("http://127.0.0.1:9/late", nil, nil)
	ctx := context.Background()
	insert := func(tx pgx.Tx) string {
		id, err := store.InsertSubmission(ctx, tx, store.NewSubmission{ProblemID: "aplusb", ProblemVersion: 1,
			Language: "python3", Lane: job.LaneLight, Source: "print(1)", TraceID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	txA, err := h.db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer txA.Rollback(ctx)
	a := insert(txA) // the smaller event id
	txB, err := h.db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b := insert(txB)
	if err := txB.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, _, err := d.FanOutOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := h.count(`SELECT count(*) FROM webhook_deliveries`); n != 0 {
		t.Fatalf("%d deliveries while an earlier transaction could still commit, want 0", n)
	}
	if err := txA.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	h.fanOutUntil(d, 2)
	rows, err := h.db.Query(ctx, `SELECT d.payload::json->'data'->>'id' FROM webhook_deliveries d
		WHERE d.endpoint_id = $1 ORDER BY d.event_id`, ep)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !((got[0] == a && got[1] == b) || (got[0] == b && got[1] == a)) {
		t.Fatalf("deliveries of %v, want one of %s and one of %s", got, a, b)
	}
}
