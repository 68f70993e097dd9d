package worker_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"oj/core/api"
	"oj/core/clock"
	"oj/core/job"
	"oj/core/store"
	"oj/core/stream"
	"oj/core/testenv"
	"oj/core/worker"
)

// TestMain lets this test binary double as a worker process for the crash test.
func TestMain(m *testing.M) {
	if os.Getenv("OJ_TEST_WORKER_CHILD") == "1" {
		os.Exit(childWorker())
	}
	os.Exit(m.Run())
}

// childWorker runs a worker whose judge announces each task on stdout and then hangs, so
// the parent can kill it mid-judge.
func childWorker() int {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("OJ_CHILD_PG"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("OJ_CHILD_REDIS")})
	streams := stream.New(rdb, stream.Keys{Prefix: os.Getenv("OJ_CHILD_PREFIX")})
	hang := newScripted(func(t job.Task, _ int) (job.Outcome, error) {
		fmt.Printf("judging %s %d\n", t.SubmissionID, t.Attempt)
		select {}
	})
	cfg := testWorkerConfig("child")
	cfg.Concurrency["run"] = 1 // runs too: a run's crash test kills it the same way
	w := worker.New(cfg, db, streams, hang, nil, clock.Real{}, quietLog(), worker.NewMetrics(nil))
	_ = w.Run(ctx)
	return 0
}

// A worker process killed with SIGKILL mid-judge: another worker finishes the submission
// with attempt 2.
func TestKilledWorkerIsReclaimed(t *testing.T) {
	t.Parallel()
	pgURL := testenv.Schema(t, testenv.PostgresURL(t))
	h := newHarnessOn(t, pgURL, testenv.RedisAddr(t), nil)
	ids := h.submit(1, job.LaneLight, 3)
	id := ids[0]
	ctx := context.Background()
	if err := h.streams.EnsureGroup(ctx, job.LaneLight); err != nil {
		t.Fatal(err)
	}
	relayAll(t, h)

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "OJ_TEST_WORKER_CHILD=1", "OJ_CHILD_PG="+pgURL,
		"OJ_CHILD_REDIS="+testenv.RedisAddr(t), "OJ_CHILD_PREFIX="+h.streams.Keys.Prefix)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	go func() {
		time.Sleep(30 * time.Second)
		_ = cmd.Process.Kill() // never hang the suite on a child that does not answer
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "judging "+id+" 1") {
		t.Fatalf("child: %q %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if s, _ := store.GetSubmission(ctx, h.db, id); s.State != job.StateRunning || s.LeaseOwner != "child" {
		t.Fatalf("before reclaim: %+v", s)
	}
	// The survivor sees the world after the child's lease ran out (a clock, not a sleep).
	h.clock = clock.NewFake(time.Now().Add(time.Minute))
	j := newScripted(nil)
	h.startWorker(testWorkerConfig("survivor"), j)
	s := h.waitTerminal(ids, 20*time.Second)[id]
	if s.State != job.StateFinished || s.Attempt != 2 || j.Calls(id) != 1 {
		t.Fatalf("after reclaim: %+v", s)
	}
	hist, _ := store.SubmissionHistory(ctx, h.db, id)
	if len(hist) != 4 || hist[1].Worker != "child" || hist[2].Worker != "survivor" || !strings.Contains(hist[2].Detail, "expired") {
		t.Fatalf("history: %+v", hist)
	}
}

// relayAll relays every due outbox row now, whatever fair release would hold back.
func relayAll(t *testing.T, h *harness) {
	t.Helper()
	for {
		n, err := h.dispAll.RelayOnce(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

// Redis FLUSHALL in the middle of a run of 500 submissions: all 500 still reach a terminal
// state, each finished exactly once. Every entry is in the stream when Redis is wiped (the
// relay released them all at once): most are lost, and re-driven.
func TestFlushAllMidRunLosesNothing(t *testing.T) {
	t.Parallel()
	st := testenv.NewStack(t)
	h := newHarness(t, st.PostgresURL, st.RedisAddr, nil).withoutFairRelease()
	j := newScripted(nil)
	j.SetDelay(2 * time.Millisecond)
	ids := h.submit(500, job.LaneLight, 3)
	h.startDispatcher()
	waitFor(t, func() bool { return h.count(`SELECT count(*) FROM outbox WHERE delivered_at IS NULL`) == 0 })
	h.startWorker(testWorkerConfig("w1"), j)
	h.startWorker(testWorkerConfig("w2"), j)
	waitFor(t, func() bool {
		return h.count(`SELECT count(*) FROM submissions WHERE state = 'finished'`) >= 100
	})
	if err := h.streams.Client().FlushAll(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	done := h.waitTerminal(ids, 60*time.Second)
	for _, id := range ids {
		if done[id].State != job.StateFinished {
			t.Fatalf("%s: %+v", id, done[id])
		}
	}
	if n := h.count(`SELECT count(*) FROM submission_history WHERE event = 'finished'`); n != 500 {
		t.Fatalf("finished events = %d, want exactly 500", n)
	}
	if n := h.count(`SELECT count(*) FROM (SELECT submission_id FROM submission_history WHERE event = 'finished'
		GROUP BY submission_id HAVING count(*) > 1) x`); n != 0 {
		t.Fatalf("%d submissions finished more than once", n)
	}
	if n := h.count(`SELECT count(*) FROM submission_history WHERE event = 'redriven'`); n < 100 {
		t.Fatalf("re-driven after the flush: %d; the flush should have lost most entries", n)
	}
}

// PostgreSQL stopped for a few seconds: entries stay pending, nothing is accepted without a
// commit (the store errors, /readyz answers 503), and everything finishes once it is back.
func TestPostgresOutage(t *testing.T) {
	t.Parallel()
	st := testenv.NewStack(t)
	h := newHarness(t, st.PostgresURL, st.RedisAddr, nil)
	var mu sync.Mutex
	gate := make(chan struct{})
	j := newScripted(func(task job.Task, _ int) (job.Outcome, error) {
		mu.Lock()
		g := gate
		mu.Unlock()
		<-g
		return job.Outcome{Verdict: job.VerdictAC}, nil
	})
	ids := h.submit(40, job.LaneLight, 3)
	relayAll(t, h)
	h.startDispatcher()
	m := newWorkerMetrics()
	h.run(h.newWorker(testWorkerConfig("w1"), j, m).Run)
	judging := func() int {
		n := 0
		for _, id := range ids {
			n += j.Calls(id)
		}
		return n
	}
	// Claimed (the judge runs only after the claim committed) and held at the gate.
	waitFor(t, func() bool { return judging() >= 4 && h.pending(job.LaneLight) >= 4 })
	st.StopPostgres()

	if _, err := store.Submit(context.Background(), h.db, store.NewSubmission{ProblemID: "p", ProblemVersion: 1,
		Language: "c11", Lane: job.LaneHeavy, Source: "x", TraceID: "t"}); err == nil {
		t.Fatal("a submission was accepted while PostgreSQL was down")
	}
	srv := httptest.NewServer(api.HealthHandler(h.db, h.streams.Client(), prometheus.NewRegistry()))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/readyz")
	if err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("/readyz with PostgreSQL down: %v %v", resp, err)
	}
	resp.Body.Close()
	close(gate) // judging finishes now, but nothing can be written back
	waitFor(t, func() bool { return testutil.ToFloat64(m.Errors.WithLabelValues("finalize")) >= 1 })
	if p := h.pending(job.LaneLight); p < 4 {
		t.Fatalf("pending entries while PostgreSQL is down = %d: acked without a commit", p)
	}
	st.StartPostgres()
	done := h.waitTerminal(ids, 60*time.Second)
	for _, id := range ids {
		if done[id].State != job.StateFinished {
			t.Fatalf("%s: %+v", id, done[id])
		}
	}
	waitFor(t, func() bool { return h.pending(job.LaneLight) == 0 })
}

// Graceful shutdown: in-flight work that outlives the grace period is given back through
// the outbox (not counted as a failure), its entry acked, and another worker finishes it.
func TestShutdownGivesBackInFlightWork(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	ids := h.submit(2, job.LaneLight, 3)
	h.startDispatcher()
	stuck := newScripted(func(job.Task, int) (job.Outcome, error) { select {} })
	stuck.SetDelay(time.Hour) // returns only when its context ends
	cfg := testWorkerConfig("leaving")
	cfg.ShutdownGrace = 100 * time.Millisecond
	stop := h.run(h.newWorker(cfg, stuck, nil).Run)
	waitFor(t, func() bool { return stuck.Calls(ids[0]) == 1 && stuck.Calls(ids[1]) == 1 })
	stop()
	ctx := context.Background()
	for _, id := range ids {
		s, _ := store.GetSubmission(ctx, h.db, id)
		if s.State != job.StateQueued || s.Failures != 0 || s.LeaseOwner != "" {
			t.Fatalf("after shutdown: %+v", s)
		}
	}
	if p := h.pending(job.LaneLight); p != 0 {
		t.Fatalf("%d entries left pending by a clean shutdown", p)
	}
	h.startWorker(testWorkerConfig("staying"), newScripted(nil))
	for id, s := range h.waitTerminal(ids, 20*time.Second) {
		if s.Verdict != job.VerdictAC || s.Attempt != 2 {
			t.Fatalf("%s after give-back: %+v", id, s)
		}
		hist, _ := store.SubmissionHistory(ctx, h.db, id)
		if hist[2].Event != "given_back" {
			t.Fatalf("history: %+v", hist)
		}
	}
}
