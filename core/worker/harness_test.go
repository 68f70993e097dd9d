package worker_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"oj/core/clock"
	"oj/core/dispatch"
	"oj/core/job"
	"oj/core/store"
	"oj/core/stream"
	"oj/core/testenv"
	"oj/core/worker"
)

// newScripted is a judge whose answers the test decides: per call it may wait, fail or crash.
func newScripted(decide func(t job.Task, call int) (job.Outcome, error)) *testenv.Judge {
	return testenv.NewJudge(decide)
}

// harness is a pipeline on real PostgreSQL and Redis: submissions, a dispatcher and
// workers, all in this process.
type harness struct {
	t       testing.TB
	db      *pgxpool.Pool
	streams *stream.Streams
	clock   clock.Clock
	log     *slog.Logger
	disp    *dispatch.Dispatcher
	dcfg    dispatch.Config
	// dispAll relays every due row at once, first come first served: what relayAll
	// uses to set a stream up, whatever fair release would hold back.
	dispAll *dispatch.Dispatcher
}

func quietLog() *slog.Logger {
	if os.Getenv("OJ_TEST_VERBOSE") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func newHarness(t testing.TB, pgURL, redisAddr string, clk clock.Clock) *harness {
	t.Helper()
	return newHarnessOn(t, testenv.Schema(t, pgURL), redisAddr, clk)
}

// newHarnessOn is newHarness on an existing migrated schema (schemaURL).
func newHarnessOn(t testing.TB, schemaURL, redisAddr string, clk clock.Clock) *harness {
	t.Helper()
	if clk == nil {
		clk = clock.Real{}
	}
	db := testenv.Pool(t, schemaURL)
	streams := testenv.Streams(t, redisAddr)
	dcfg := dispatch.DefaultConfig()
	dcfg.PollInterval = 50 * time.Millisecond
	dcfg.ReconcileInterval = 200 * time.Millisecond
	dcfg.ReconcileAfter = 300 * time.Millisecond
	dcfg.RetryBase = 10 * time.Millisecond
	dcfg.RetryMax = 200 * time.Millisecond
	h := &harness{t: t, db: db, streams: streams, clock: clk, log: quietLog(), dcfg: dcfg}
	h.disp = dispatch.New(dcfg, db, streams, clk, h.log, dispatch.NewMetrics(nil))
	all := dcfg
	all.FairRelease = false
	h.dispAll = dispatch.New(all, db, streams, clk, h.log, dispatch.NewMetrics(nil))
	return h
}

// withoutFairRelease makes the harness's dispatcher relay every row at once (the
// streams then hold the whole queue, as before fair release).
func (h *harness) withoutFairRelease() *harness {
	h.dcfg.FairRelease = false
	h.disp = h.dispAll
	return h
}

func testWorkerConfig(name string) worker.Config {
	cfg := worker.DefaultConfig()
	cfg.Name = name
	cfg.Concurrency = map[string]int{"light": 4, "heavy": 2}
	cfg.Lease = 5 * time.Second
	cfg.HeartbeatInterval = time.Second
	cfg.ReadBlock = 100 * time.Millisecond
	cfg.ReclaimInterval = 100 * time.Millisecond
	cfg.ReclaimMinIdle = 200 * time.Millisecond
	cfg.RetryBase = 10 * time.Millisecond
	cfg.RetryMax = 50 * time.Millisecond
	cfg.ShutdownGrace = 5 * time.Second
	// Scripted judges fail on purpose, many times in a row; the tests of the quarantine
	// turn it on themselves.
	cfg.QuarantineAfter = 0
	cfg.StatePoll = 100 * time.Millisecond
	return cfg
}

// run starts fn in the background until the test ends (or stop is called).
func (h *harness) run(fn func(ctx context.Context) error) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = fn(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	h.t.Cleanup(stop)
	return stop
}

func (h *harness) startDispatcher() func() { return h.run(h.disp.Run) }

func (h *harness) newWorker(cfg worker.Config, j worker.Judge, m *worker.Metrics) *worker.Worker {
	if m == nil {
		m = worker.NewMetrics(nil)
	}
	return worker.New(cfg, h.db, h.streams, j, h.disp, h.clock, h.log, m)
}

func (h *harness) startWorker(cfg worker.Config, j worker.Judge) func() {
	return h.run(h.newWorker(cfg, j, nil).Run)
}

func (h *harness) submit(n int, lane job.Lane, maxAttempts int) []string {
	h.t.Helper()
	ids := make([]string, n)
	for i := range ids {
		id, err := store.Submit(context.Background(), h.db, store.NewSubmission{ProblemID: "aplusb", ProblemVersion: 1,
			Language: "python3", Lane: lane, Source: "print(sum(map(int, input().split())))", MaxAttempts: maxAttempts,
			TraceID: testenv.RandomName("trace-")})
		if err != nil {
			h.t.Fatal(err)
		}
		ids[i] = id
	}
	return ids
}

// waitTerminal polls PostgreSQL until every id is terminal and returns them.
func (h *harness) waitTerminal(ids []string, timeout time.Duration) map[string]*store.Submission {
	h.t.Helper()
	deadline := time.Now().Add(timeout)
	out := map[string]*store.Submission{}
	for {
		var pending []string
		for _, id := range ids {
			if s, ok := out[id]; ok && s.State.Terminal() {
				continue
			}
			s, err := store.GetSubmission(context.Background(), h.db, id)
			if err == nil && s.State.Terminal() {
				out[id] = s
				continue
			}
			pending = append(pending, id)
		}
		if len(pending) == 0 {
			return out
		}
		if time.Now().After(deadline) {
			s, err := store.GetSubmission(context.Background(), h.db, pending[0])
			hist, _ := store.SubmissionHistory(context.Background(), h.db, pending[0])
			rows, _ := h.db.Query(context.Background(), `SELECT id, kind, lane, coalesce(stream_id, ''), delivered_at IS NOT NULL
				FROM outbox WHERE submission_id = $1 ORDER BY id`, pending[0])
			var outbox []string
			for rows.Next() {
				var id int64
				var kind, lane, sid string
				var delivered bool
				_ = rows.Scan(&id, &kind, &lane, &sid, &delivered)
				outbox = append(outbox, fmt.Sprintf("%d/%s/%s/%s/%v", id, kind, lane, sid, delivered))
			}
			rows.Close()
			h.t.Fatalf("%d of %d submissions not terminal after %s; first: %+v %v\nhistory: %+v\noutbox: %v",
				len(pending), len(ids), timeout, s, err, hist, outbox)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (h *harness) count(sql string, args ...any) int {
	h.t.Helper()
	var n int
	if err := h.db.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		h.t.Fatal(err)
	}
	return n
}

func (h *harness) pending(lane job.Lane) int64 {
	h.t.Helper()
	p, err := h.streams.Client().XPending(context.Background(), h.streams.Keys.Jobs(lane), stream.Group).Result()
	if stream.IsNoGroup(err) {
		return 0
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return p.Count
}

func newWorkerMetrics() *worker.Metrics { return worker.NewMetrics(nil) }

// waitFor polls cond until it holds, failing the test after 20 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 20s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
