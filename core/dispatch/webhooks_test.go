package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
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
