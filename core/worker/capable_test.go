package worker_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"oj/core/job"
	"oj/core/ops"
	"oj/core/store"
	"oj/core/testenv"
)

// submitIn adds n queued submissions in language to lane.
func (h *harness) submitIn(n int, lane job.Lane, language string, maxAttempts int) []string {
	h.t.Helper()
	ids := make([]string, n)
	for i := range ids {
		id, err := store.Submit(context.Background(), h.db, store.NewSubmission{ProblemID: "aplusb", ProblemVersion: 1,
			Language: language, Lane: lane, Source: "class Main {}", MaxAttempts: maxAttempts,
			TraceID: testenv.RandomName("trace-")})
		if err != nil {
			h.t.Fatal(err)
		}
		ids[i] = id
	}
	return ids
}

// claimsBy counts the claims worker made in the history of the given submissions.
func (h *harness) claimsBy(worker string, ids []string) int {
	h.t.Helper()
	return h.count(`SELECT count(*) FROM submission_history WHERE event = 'claimed' AND worker = $1
		AND submission_id = ANY($2::text[]::uuid[])`, worker, ids)
}

// A Java submission while the only live worker lacks Java (worker.languages without it,
// as ojd sets it when the self-check of java17 fails): it waits with its reason, spends
// no attempt over several lease periods — also when its entry reached the stream before
// any worker was live and the worker without Java read it — and the first capable worker
// to start judges it. Python submissions meanwhile go through the worker without Java.
func TestSubmissionWaitsForACapableWorker(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	ctx := context.Background()
	// The first Java submission goes into the stream while no worker is live: the lane is
	// not gated then, and the worker without Java reads it.
	early := h.submitIn(1, job.LaneHeavy, "java17", 3)
	if err := h.streams.EnsureGroup(ctx, job.LaneHeavy); err != nil {
		t.Fatal(err)
	}
	relayAll(t, h)

	noJava := testWorkerConfig("no-java")
	noJava.Lease = 2 * time.Second
	noJava.Languages = []string{"python3", "cpp17"}
	noJava.HandBackDelay = 300 * time.Millisecond
	m := newWorkerMetrics()
	h.run(h.newWorker(noJava, newScripted(nil), m).Run)
	h.startDispatcher()
	waitFor(t, func() bool { return testutil.ToFloat64(m.HandedBack.WithLabelValues("heavy", "incapable")) >= 1 })
	// Once the relay has read the live workers (within a capacity refresh, 2 s), it holds
	// what no live worker runs: from then on nothing is handed back again.
	time.Sleep(2500 * time.Millisecond)
	handedBack := testutil.ToFloat64(m.HandedBack.WithLabelValues("heavy", "incapable"))

	late := h.submitIn(2, job.LaneHeavy, "java17", 3)
	java := append(early, late...)
	py := h.submit(3, job.LaneHeavy, 3)
	h.waitTerminal(py, 20*time.Second)

	// Several lease periods: nothing claims the Java submissions, nothing spends an attempt.
	time.Sleep(3 * noJava.Lease)
	for _, id := range java {
		s, err := store.GetSubmission(ctx, h.db, id)
		if err != nil {
			t.Fatal(err)
		}
		if s.State != job.StateQueued || s.Attempt != 0 || s.Failures != 0 {
			t.Fatalf("java submission %s while no worker runs java17: %+v; want queued, attempt 0", id, s)
		}
	}
	if n := h.claimsBy("no-java", java); n != 0 {
		t.Fatalf("the worker without java17 claimed %d java submissions", n)
	}
	// The reason is what the overview, the trace and ojctl status show.
	live, err := store.LiveCapacity(ctx, h.db, store.WorkerLiveWithin)
	if err != nil {
		t.Fatal(err)
	}
	if got := live.Waiting(job.LaneHeavy, "java17"); got != "queued: no live worker runs java17" {
		t.Fatalf("waiting reason = %q", got)
	}
	if got := live.Waiting(job.LaneHeavy, "python3"); got != "" {
		t.Fatalf("python3 waiting reason = %q, want none", got)
	}
	qs, err := store.LanguageQueues(ctx, h.db)
	if err != nil {
		t.Fatal(err)
	}
	held := int64(0)
	for _, q := range qs {
		if q.Lane == job.LaneHeavy && q.Language == "java17" {
			held = q.Waiting
		}
	}
	if held != int64(len(java)) {
		t.Fatalf("java17 rows held in the outbox = %d, want %d (%+v)", held, len(java), qs)
	}
	// Not circling: the relay holds the rows while no live worker runs their language.
	if n := testutil.ToFloat64(m.HandedBack.WithLabelValues("heavy", "incapable")); n != handedBack {
		t.Fatalf("handed back %v times, %v of them after the relay knew the live workers; a held row must not circle through the stream",
			n, n-handedBack)
	}
	if n := h.count(`SELECT count(*) FROM dead_letters`); n != 0 {
		t.Fatalf("%d dead letters", n)
	}

	// A worker with Java starts: it judges them, first attempt each.
	withJava := testWorkerConfig("with-java")
	withJava.Languages = []string{"java17"}
	h.startWorker(withJava, newScripted(nil))
	done := h.waitTerminal(java, 20*time.Second)
	for _, id := range java {
		if s := done[id]; s.State != job.StateFinished || s.Attempt != 1 {
			t.Fatalf("java submission %s: %+v; want finished at attempt 1", id, s)
		}
	}
	if n := h.claimsBy("with-java", java); n != len(java) {
		t.Fatalf("the worker with java17 claimed %d of %d", n, len(java))
	}
}

// Drain mid-run: the drained worker finishes the submission it holds and claims nothing
// new from the moment the drain committed; another worker judges the rest.
func TestDrainedWorkerFinishesItsWorkAndTakesNothingNew(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	ctx := context.Background()
	j := newScripted(nil)
	j.SetDelay(1500 * time.Millisecond)
	a := testWorkerConfig("a")
	a.Concurrency = map[string]int{"light": 1}
	h.startDispatcher()
	wa := h.newWorker(a, j, nil)
	h.run(wa.Run)
	ids := h.submit(5, job.LaneLight, 3)
	waitFor(t, func() bool { return h.claimsBy("a", ids) == 1 })

	o := ops.New(h.db, h.streams, nil, h.log)
	c, err := o.SetWorkerState(ctx, ops.Request{Actor: "op"}, ops.WorkerParams{Name: "a", Reason: "host maintenance"}, store.WorkerDraining)
	if err != nil || c.Changed != 1 || c.From != "active" {
		t.Fatalf("drain = %+v, %v", c, err)
	}
	waitFor(t, func() bool { st, _ := wa.State(); return st == store.WorkerDraining })
	b := testWorkerConfig("b")
	b.Concurrency = map[string]int{"light": 2}
	h.startWorker(b, j)
	done := h.waitTerminal(ids, 30*time.Second)
	for id, s := range done {
		if s.State != job.StateFinished || s.Attempt != 1 {
			t.Fatalf("submission %s: %+v; want finished at attempt 1", id, s)
		}
	}
	if n := h.claimsBy("a", ids); n != 1 {
		t.Fatalf("the drained worker claimed %d submissions; want only the one it held", n)
	}
	if n := h.claimsBy("b", ids); n != len(ids)-1 {
		t.Fatalf("the other worker claimed %d; want %d", n, len(ids)-1)
	}
	held := h.count(`SELECT count(*) FROM submission_history WHERE event = 'finished' AND worker = 'a'`)
	if held != 1 {
		t.Fatalf("the drained worker finished %d; want the one it held", held)
	}
	st, reason, err := store.WorkerStateOf(ctx, h.db, "a")
	if err != nil || st != store.WorkerDraining || reason != "host maintenance" {
		t.Fatalf("state = %s %q %v", st, reason, err)
	}
	if n := h.count(`SELECT count(*) FROM audit_log WHERE action = 'worker_drain' AND actor = 'op' AND NOT dry_run`); n != 1 {
		t.Fatalf("audit rows for the drain = %d", n)
	}
}

// Disable: the worker gives back what it is judging at once (no failure counted) and
// claims nothing; enabled again, it judges it.
func TestDisabledWorkerGivesBackItsWork(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	ctx := context.Background()
	j := newScripted(nil)
	j.SetDelay(time.Hour)
	cfg := testWorkerConfig("d")
	h.startDispatcher()
	w := h.newWorker(cfg, j, nil)
	h.run(w.Run)
	ids := h.submit(1, job.LaneLight, 3)
	waitFor(t, func() bool { return h.claimsBy("d", ids) == 1 })
	o := ops.New(h.db, h.streams, nil, h.log)
	if _, err := o.SetWorkerState(ctx, ops.Request{Actor: "op"}, ops.WorkerParams{Name: "d"}, store.WorkerDisabled); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		return h.count(`SELECT count(*) FROM submission_history WHERE event = 'given_back' AND submission_id = $1`, ids[0]) == 1
	})
	time.Sleep(time.Second)
	s, err := store.GetSubmission(ctx, h.db, ids[0])
	if err != nil || s.State != job.StateQueued || s.Failures != 0 || h.claimsBy("d", ids) != 1 {
		t.Fatalf("after the disable: %+v %v, claims %d; want queued, no failure, no new claim", s, err, h.claimsBy("d", ids))
	}
	j.SetDelay(0)
	if _, err := o.SetWorkerState(ctx, ops.Request{Actor: "op"}, ops.WorkerParams{Name: "d"}, store.WorkerActive); err != nil {
		t.Fatal(err)
	}
	done := h.waitTerminal(ids, 20*time.Second)
	if s := done[ids[0]]; s.State != job.StateFinished || s.Attempt != 2 || s.Failures != 0 {
		t.Fatalf("after the enable: %+v", s)
	}
}

// A worker whose last quarantine_after attempts all ended in system errors quarantines
// itself with the reason, and claims nothing until an operator enables it; the
// submissions it failed are retried, not dead.
func TestWorkerQuarantinesItselfAfterSystemErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	ctx := context.Background()
	j := newScripted(func(job.Task, int) (job.Outcome, error) {
		return job.Outcome{}, errors.New("run: sandbox failure: cgroup vanished")
	})
	cfg := testWorkerConfig("sick")
	cfg.Concurrency = map[string]int{"light": 1}
	cfg.QuarantineAfter = 3
	m := newWorkerMetrics()
	h.startDispatcher()
	w := h.newWorker(cfg, j, m)
	h.run(w.Run)
	ids := h.submit(3, job.LaneLight, 5)
	waitFor(t, func() bool { st, _ := w.State(); return st == store.WorkerQuarantined })
	// The worker stops claiming at once, then stores the quarantine.
	waitFor(t, func() bool { st, _, _ := store.WorkerStateOf(ctx, h.db, "sick"); return st == store.WorkerQuarantined })
	st, reason, err := store.WorkerStateOf(ctx, h.db, "sick")
	if err != nil || st != store.WorkerQuarantined || !strings.Contains(reason, "last 3 attempts ended in system errors") ||
		!strings.Contains(reason, "cgroup vanished") {
		t.Fatalf("state = %s %q %v", st, reason, err)
	}
	if v := testutil.ToFloat64(m.State.WithLabelValues("quarantined")); v != 1 {
		t.Fatalf("oj_worker_state{state=quarantined} = %v", v)
	}
	// An attempt claimed while the third was failing (its judging slot was free during
	// the write-back) may still end; nothing is claimed once the quarantine is in place.
	time.Sleep(300 * time.Millisecond)
	claims := h.claimsBy("sick", ids)
	time.Sleep(time.Second)
	if n := h.claimsBy("sick", ids); n != claims || n < 3 {
		t.Fatalf("claims after the quarantine: %d, then %d; want at least 3, then no more", claims, n)
	}
	if n := h.count(`SELECT count(*) FROM submissions WHERE state = 'dead'`); n != 0 {
		t.Fatalf("%d dead; a quarantined worker's failures must leave room for a healthy worker", n)
	}
	rows, err := store.ListWorkers(ctx, h.db)
	if err != nil || len(rows) != 1 || len(rows[0].RecentErrors) == 0 {
		t.Fatalf("workers = %+v %v; want the sick worker with its recent errors", rows, err)
	}

	j.Set(nil, 0)
	o := ops.New(h.db, h.streams, nil, h.log)
	if _, err := o.SetWorkerState(ctx, ops.Request{Actor: "op"}, ops.WorkerParams{Name: "sick", Reason: "cgroup fixed"}, store.WorkerActive); err != nil {
		t.Fatal(err)
	}
	done := h.waitTerminal(ids, 20*time.Second)
	for id, s := range done {
		if s.State != job.StateFinished {
			t.Fatalf("submission %s after the enable: %+v", id, s)
		}
	}
}
