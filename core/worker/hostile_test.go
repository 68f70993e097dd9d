package worker_test

import (
	"context"
	"log/slog"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"oj/core/clock"
	"oj/core/job"
	"oj/core/store"
	"oj/core/stream"
	"oj/core/testenv"
	"oj/core/worker"
)

// Issue 10: one hostile submission must never change another submission's verdict or
// stall the pipeline.

// byIndex scripts a judge per submission: answers[i] for ids[i], Accept for the rest.
func byIndex(ids []string, answers map[int]func() (job.Outcome, error)) func(job.Task, int) (job.Outcome, error) {
	return func(t job.Task, call int) (job.Outcome, error) {
		for i, id := range ids {
			if id == t.SubmissionID && answers[i] != nil {
				return answers[i]()
			}
		}
		return testenv.Accept(t, call)
	}
}

// Checker messages echoing a contestant's NUL or invalid UTF-8 are stored (as U+FFFD) with
// their verdict; a verdict PostgreSQL can never store ends as SE with the reason, alone:
// the rest of its finalize batch is written normally, nothing is retried as an outage, and
// the worker keeps judging.
func TestHostileVerdictsDoNotStallTheBatch(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	ids := h.submit(12, job.LaneLight, 3)
	relayAll(t, h)
	hostile := "wrong answer: found \x00\xff"
	const stored = "wrong answer: found \uFFFD\uFFFD"
	j := newScripted(byIndex(ids, map[int]func() (job.Outcome, error){
		0: func() (job.Outcome, error) {
			return job.Outcome{Verdict: job.VerdictWA, CompileOutput: "warning: \x00", Cases: []job.CaseResult{
				{Index: 1, Verdict: job.VerdictWA, Message: hostile, CheckerMessage: hostile}}}, nil
		},
		1: func() (job.Outcome, error) { // PostgreSQL refuses it: SQLSTATE 22003
			return job.Outcome{Verdict: job.VerdictAC, Score: 100, TimeMS: 1 << 40}, nil
		},
		2: func() (job.Outcome, error) { // JSON cannot hold it
			return job.Outcome{Verdict: job.VerdictPC, Cases: []job.CaseResult{{Index: 1, Verdict: job.VerdictPC, Score: math.NaN()}}}, nil
		},
		3: func() (job.Outcome, error) { // PostgreSQL would store it, no answer could render it
			return job.Outcome{Verdict: job.VerdictAC, Score: math.Inf(1), Cases: []job.CaseResult{{Index: 1, Verdict: job.VerdictAC, Score: 1e302}}}, nil
		},
	}))
	cfg := testWorkerConfig("w1")
	cfg.Concurrency = map[string]int{"light": 16}
	cfg.FinalizeLinger = 300 * time.Millisecond // one read, one claim, one finalize batch
	h.startWorker(cfg, j)

	done := h.waitTerminal(ids, 20*time.Second)
	if s := done[ids[0]]; s.State != job.StateFinished || s.Verdict != job.VerdictWA || s.CompileOutput != "warning: \uFFFD" ||
		len(s.Cases) != 1 || s.Cases[0].Message != stored || s.Cases[0].CheckerMessage != stored || s.LastError != "" {
		t.Fatalf("NUL in the checker's message: %+v", s)
	}
	for _, i := range []int{1, 2, 3} {
		s := done[ids[i]]
		if s.State != job.StateFinished || s.Verdict != job.VerdictSE || s.Attempt != 1 ||
			!strings.Contains(s.LastError, "could not be stored") || j.Calls(ids[i]) != 1 {
			t.Fatalf("unstorable verdict %d: %+v (judged %d times)", i, s, j.Calls(ids[i]))
		}
		hist, err := store.SubmissionHistory(context.Background(), h.db, ids[i])
		if err != nil || len(hist) != 3 || hist[2].Event != "finished" || !strings.HasPrefix(hist[2].Detail, "SE: verdict") {
			t.Fatalf("history of unstorable verdict %d: %+v %v", i, hist, err)
		}
	}
	if !strings.Contains(done[ids[1]].LastError, "22003") {
		t.Errorf("reason lacks PostgreSQL's SQLSTATE: %q", done[ids[1]].LastError)
	}
	if s := done[ids[3]]; !strings.Contains(s.LastError, "score +Inf is not a finite number within ±1e+09") || s.Score != 0 {
		t.Errorf("an infinite score: %+v", s)
	}
	for _, id := range ids[4:] {
		if s := done[id]; s.State != job.StateFinished || s.Verdict != job.VerdictAC || s.Attempt != 1 {
			t.Fatalf("a bystander of the batch: %+v", s)
		}
	}
	waitFor(t, func() bool { return h.pending(job.LaneLight) == 0 })

	more := h.submit(5, job.LaneLight, 3)
	relayAll(t, h)
	for _, s := range h.waitTerminal(more, 20*time.Second) {
		if s.Verdict != job.VerdictAC {
			t.Fatalf("after the hostile batch: %+v", s)
		}
	}
}

// A judge that panics on one submission ends that attempt as SE (final, the panic as its
// reason); the others in flight with it are judged normally and the worker lives on.
func TestJudgePanicEndsOnlyItsAttempt(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	ids := h.submit(6, job.LaneLight, 3)
	relayAll(t, h)
	j := newScripted(byIndex(ids, map[int]func() (job.Outcome, error){
		0: func() (job.Outcome, error) { panic("checker output tripped a bug \x00") },
	}))
	h.startWorker(testWorkerConfig("w1"), j)
	done := h.waitTerminal(ids, 20*time.Second)
	if s := done[ids[0]]; s.State != job.StateFinished || s.Verdict != job.VerdictSE || s.Attempt != 1 ||
		s.LastError != "judge panicked: checker output tripped a bug \uFFFD" || j.Calls(ids[0]) != 1 {
		t.Fatalf("panicking judge: %+v", s)
	}
	for _, id := range ids[1:] {
		if s := done[id]; s.Verdict != job.VerdictAC {
			t.Fatalf("judged next to a panic: %+v", s)
		}
	}
	more := h.submit(3, job.LaneLight, 3)
	relayAll(t, h)
	h.waitTerminal(more, 20*time.Second)
	waitFor(t, func() bool { return h.pending(job.LaneLight) == 0 })
}

// Entries that cannot be jobs (no submission id, not a UUID) are acked and deleted with a
// logged reason, on the read and on the reclaim path, and the well-formed entries read or
// reclaimed in the same batch are judged.
func TestMalformedEntriesAreDropped(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	ctx := context.Background()
	if err := h.streams.EnsureGroup(ctx, job.LaneLight); err != nil {
		t.Fatal(err)
	}
	key := h.streams.Keys.Jobs(job.LaneLight)
	junk := func() {
		for _, v := range [][]any{{stream.FieldTrace, "no id"}, {stream.FieldSubmission, "1; DROP TABLE submissions"},
			{stream.FieldSubmission, "\x00"}} {
			if err := h.streams.Client().XAdd(ctx, &redis.XAddArgs{Stream: key, Values: v}).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Delivered to a consumer that is gone: only reclaim sees these.
	reclaimed := h.submit(3, job.LaneLight, 3)
	relayAll(t, h)
	junk()
	if _, err := h.streams.Read(ctx, job.LaneLight, "gone", 100, 10*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	// Fresh: the read path.
	read := h.submit(3, job.LaneLight, 3)
	relayAll(t, h)
	junk()

	logs := &recordingHandler{}
	w := worker.New(testWorkerConfig("w1"), h.db, h.streams, newScripted(nil), h.disp, h.clock, slog.New(logs), newWorkerMetrics())
	h.run(w.Run)
	ids := append(reclaimed, read...)
	for _, s := range h.waitTerminal(ids, 20*time.Second) {
		if s.Verdict != job.VerdictAC || s.Attempt != 1 {
			t.Fatalf("a well-formed entry next to malformed ones: %+v", s)
		}
	}
	waitFor(t, func() bool { return h.pending(job.LaneLight) == 0 })
	if n, err := h.streams.Client().XLen(ctx, key).Result(); err != nil || n != int64(len(ids)) {
		t.Fatalf("stream length %d %v, want %d: malformed entries were not deleted", n, err, len(ids))
	}
	if n := logs.count("dropping a malformed stream entry"); n != 6 {
		t.Fatalf("logged drops = %d, want 6", n)
	}
}

// A heartbeat round that runs after a verdict was committed, before the worker forgot the
// attempt, neither reports a lost lease nor stops anything.
func TestHeartbeatAfterCommitIsNoLostLease(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	ids := h.submit(10, job.LaneLight, 3)
	relayAll(t, h)
	logs := &recordingHandler{}
	w := worker.New(testWorkerConfig("w1"), h.db, h.streams, newScripted(nil), h.disp, h.clock, slog.New(logs), newWorkerMetrics())
	var rounds atomic.Int32
	worker.HeartbeatAfterCommit(w, &rounds)
	h.run(w.Run)
	for _, s := range h.waitTerminal(ids, 20*time.Second) {
		if s.Verdict != job.VerdictAC {
			t.Fatalf("%+v", s)
		}
	}
	waitFor(t, func() bool { return h.pending(job.LaneLight) == 0 })
	if rounds.Load() == 0 {
		t.Fatal("no heartbeat round ran after a commit")
	}
	if n := logs.count("lease lost"); n != 0 {
		t.Fatalf("%d false lease-lost reports after commits", n)
	}
}

// SIGTERM while PostgreSQL is down or hangs: verdicts that cannot be written back, and
// judging still in flight, do not hold the worker; Run returns once shutdown_grace and
// store_timeout are over, and another worker finishes everything once PostgreSQL is back.
func TestShutdownDuringPostgresOutage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// hang says which attempts (1-based, in the order they open the gate) keep judging
		// until the shutdown grace cancels them; the others answer AC.
		hang func(n int32) bool
		// pgHangs freezes PostgreSQL (statements hang) instead of stopping it.
		pgHangs bool
	}{
		{"every verdict waits for PostgreSQL", func(int32) bool { return false }, false},
		{"verdicts wait and judging is in flight", func(n int32) bool { return n%2 == 1 }, false},
		{"PostgreSQL hangs", func(n int32) bool { return n%2 == 1 }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := testenv.NewStack(t)
			h := newHarness(t, st.PostgresURL, st.RedisAddr, nil)
			ids := h.submit(6, job.LaneLight, 3)
			relayAll(t, h)
			judge := &gatedJudge{gate: make(chan struct{}), hang: tc.hang, next: newScripted(nil)}
			cfg := testWorkerConfig("w1")
			cfg.ShutdownGrace = time.Second
			cfg.StoreTimeout = 2 * time.Second
			w := h.newWorker(cfg, judge, nil)
			ctx, cancel := context.WithCancel(context.Background())
			returned := make(chan struct{})
			go func() { defer close(returned); _ = w.Run(ctx) }()
			t.Cleanup(func() { cancel(); <-returned })
			waitFor(t, func() bool { return judge.started.Load() == 4 }) // claimed, judging
			if tc.pgHangs {
				st.PausePostgres()
				probe, cancelProbe := context.WithTimeout(context.Background(), 300*time.Millisecond)
				_, err := h.db.Exec(probe, `SELECT 1`)
				cancelProbe()
				if err == nil {
					t.Fatal("PostgreSQL still answers while paused")
				}
			} else {
				st.StopPostgres()
			}
			close(judge.gate)
			waitFor(t, func() bool { return judge.opened.Load() == 4 })
			stopAt := time.Now()
			cancel()
			select {
			case <-returned:
				t.Logf("Run returned %s after the stop (grace 1s, store_timeout 2s)", time.Since(stopAt).Round(10*time.Millisecond))
			case <-time.After(30 * time.Second):
				t.Fatal("Run did not return within 30s of the stop with PostgreSQL down (grace 1s, store_timeout 2s)")
			}

			if tc.pgHangs {
				st.ResumePostgres()
			} else {
				st.StartPostgres()
			}
			h.clock = clock.NewFake(time.Now().Add(time.Minute)) // w1's leases have expired
			h.startWorker(testWorkerConfig("w2"), newScripted(nil))
			for _, s := range h.waitTerminal(ids, 60*time.Second) {
				if s.State != job.StateFinished || s.Verdict != job.VerdictAC {
					t.Fatalf("after the outage: %+v", s)
				}
			}
		})
	}
}

// A verdict that cannot be written back because PostgreSQL is away is retried for one
// lease length at most (the worker's clock): then the worker stops retrying and
// heartbeating it, and once PostgreSQL is back reclaim judges it again with a new attempt
// instead of the worker holding it forever.
func TestStuckWriteBackIsGivenUpToReclaim(t *testing.T) {
	t.Parallel()
	st := testenv.NewStack(t)
	clk := clock.NewFake(time.Now())
	h := newHarness(t, st.PostgresURL, st.RedisAddr, clk)
	ids := h.submit(1, job.LaneLight, 3)
	relayAll(t, h)
	judge := &gatedJudge{gate: make(chan struct{}), hang: func(int32) bool { return false }, next: newScripted(nil)}
	m := newWorkerMetrics()
	cfg := testWorkerConfig("w1")
	h.run(h.newWorker(cfg, judge, m).Run)
	waitFor(t, func() bool { return judge.started.Load() == 1 })
	st.StopPostgres()
	close(judge.gate)
	waitFor(t, func() bool { return testutil.ToFloat64(m.Errors.WithLabelValues("finalize")) >= 2 })
	if n := testutil.ToFloat64(m.InFlight.WithLabelValues("light")); n != 1 {
		t.Fatalf("in flight while retrying = %v, want 1", n)
	}
	clk.Advance(cfg.Lease + time.Second)
	waitFor(t, func() bool { return testutil.ToFloat64(m.InFlight.WithLabelValues("light")) == 0 })
	st.StartPostgres()
	s := h.waitTerminal(ids, 30*time.Second)[ids[0]]
	if s.State != job.StateFinished || s.Verdict != job.VerdictAC || s.Attempt != 2 || judge.started.Load() != 2 {
		t.Fatalf("after giving up the write-back: %+v (judged %d times)", s, judge.started.Load())
	}
}

// gatedJudge holds every attempt until gate opens; then the attempts hang picks keep
// judging until their context ends (the shutdown grace) and the others answer with next.
type gatedJudge struct {
	gate    chan struct{}
	hang    func(n int32) bool
	started atomic.Int32
	opened  atomic.Int32
	next    worker.Judge
}

func (g *gatedJudge) Judge(ctx context.Context, t job.Task) (job.Outcome, error) {
	g.started.Add(1)
	<-g.gate
	if !g.hang(g.opened.Add(1)) {
		return g.next.Judge(ctx, t)
	}
	<-ctx.Done()
	return job.Outcome{}, context.Cause(ctx)
}

// recordingHandler keeps every log message, for tests that assert what was (not) logged.
type recordingHandler struct {
	mu   sync.Mutex
	msgs []string
}

func (r *recordingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (r *recordingHandler) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	r.msgs = append(r.msgs, rec.Message)
	r.mu.Unlock()
	return nil
}
func (r *recordingHandler) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *recordingHandler) WithGroup(string) slog.Handler      { return r }

func (r *recordingHandler) count(substr string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range r.msgs {
		if strings.Contains(m, substr) {
			n++
		}
	}
	return n
}
