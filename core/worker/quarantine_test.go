package worker_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"oj/core/job"
	"oj/core/judge"
	"oj/core/ops"
	"oj/core/store"
	"oj/core/testenv"
	"oj/core/worker"
)

// stalled is what the judge returns for a run the sandbox gave up because the host held
// it up past sandbox.max_stall (core/judge marks it so, from sandbox.Result.HostBusy).
func stalled() error {
	return judge.HostBusy(errors.New("run: sandbox failure: sandbox: the host held the run up for 28s (starting it 1ms, " +
		"then waiting for a CPU or for its output to be read 28s of 30s), over sandbox.max_stall × its wall limit (12s): " +
		"the host is too busy to judge it"))
}

// quarantineConfig is a one-slot worker that quarantines after 3 system errors and
// re-runs its self-check every 100-200 ms while quarantined.
func quarantineConfig(name string) worker.Config {
	cfg := testWorkerConfig(name)
	cfg.Concurrency = map[string]int{"light": 1}
	cfg.QuarantineAfter = 3
	cfg.QuarantineRecheck = 100 * time.Millisecond
	cfg.QuarantineRecheckMax = 200 * time.Millisecond
	return cfg
}

// selfCheck is a scripted self-check: it fails with err until err is nil, and counts its runs.
type selfCheck struct {
	calls atomic.Int32
	err   atomic.Pointer[error]
	// during, when set, runs inside the check, before it answers.
	during func()
}

func (c *selfCheck) set(err error) { c.err.Store(&err) }

func (c *selfCheck) run(context.Context) error {
	c.calls.Add(1)
	if c.during != nil {
		c.during()
	}
	if p := c.err.Load(); p != nil {
		return *p
	}
	return nil
}

// A host held busy: every run stalls past sandbox.max_stall for a while (more attempts
// in a row than quarantine_after), then the load passes. The worker never quarantines
// itself and judges on with no operator's action: the submissions end AC, and those
// submitted after the load are judged too.
func TestBusyHostIsNotABrokenWorker(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	ctx := context.Background()
	var calls atomic.Int32
	j := newScripted(func(t job.Task, _ int) (job.Outcome, error) {
		if calls.Add(1) <= 6 {
			return job.Outcome{}, stalled()
		}
		return testenv.Accept(t, 0)
	})
	cfg := quarantineConfig("busy")
	m := newWorkerMetrics()
	h.startDispatcher()
	w := h.newWorker(cfg, j, m)
	check := &selfCheck{}
	w.SetSelfCheck(check.run)
	h.run(w.Run)
	ids := h.submit(2, job.LaneLight, 10)
	for id, s := range h.waitTerminal(ids, 30*time.Second) {
		if s.State != job.StateFinished || s.Verdict != job.VerdictAC {
			t.Fatalf("submission %s: %+v; want finished AC once the load passed", id, s)
		}
	}
	later := h.submit(3, job.LaneLight, 1)
	for id, s := range h.waitTerminal(later, 30*time.Second) {
		if s.State != job.StateFinished || s.Verdict != job.VerdictAC {
			t.Fatalf("submission %s after the load: %+v", id, s)
		}
	}
	if st, reason, err := store.WorkerStateOf(ctx, h.db, "busy"); err != nil || st != store.WorkerActive {
		t.Fatalf("worker state %s %q %v; want active", st, reason, err)
	}
	if n := testutil.ToFloat64(m.Quarantines); n != 0 {
		t.Fatalf("oj_worker_quarantines_total = %v; a busy host must not quarantine the worker", n)
	}
	if n := testutil.ToFloat64(m.HostBusy); n != 6 {
		t.Fatalf("oj_worker_host_busy_total = %v, want 6", n)
	}
	if n := check.calls.Load(); n != 0 {
		t.Fatalf("self-check ran %d times; the worker was never quarantined", n)
	}
}

// quarantine starts a worker whose judge fails with err, submits work and waits until
// the worker stored its quarantine.
func quarantine(t *testing.T, h *harness, name string, err error, check *selfCheck, m *worker.Metrics) (*worker.Worker, *testenv.Judge, []string) {
	t.Helper()
	j := newScripted(func(job.Task, int) (job.Outcome, error) { return job.Outcome{}, err })
	h.startDispatcher()
	w := h.newWorker(quarantineConfig(name), j, m)
	w.SetSelfCheck(check.run)
	h.run(w.Run)
	ids := h.submit(3, job.LaneLight, 10)
	waitFor(t, func() bool {
		st, _, _ := store.WorkerStateOf(context.Background(), h.db, name)
		return st == store.WorkerQuarantined
	})
	return w, j, ids
}

// A worker whose toolchain broke still quarantines itself, and stays quarantined while
// its self-check keeps failing (rechecked on its backoff).
func TestBrokenToolchainStillQuarantines(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	check := &selfCheck{}
	check.set(errors.New("worker self-check: toolchains gone: cpp17: /usr/bin/g++: not found"))
	m := newWorkerMetrics()
	w, _, _ := quarantine(t, h, "broken", errors.New("compile: fork/exec /usr/bin/g++: no such file or directory"), check, m)
	waitFor(t, func() bool { return check.calls.Load() >= 3 })
	st, reason, err := store.WorkerStateOf(context.Background(), h.db, "broken")
	if err != nil || st != store.WorkerQuarantined || !strings.Contains(reason, "/usr/bin/g++") {
		t.Fatalf("state %s %q %v; want quarantined naming the toolchain", st, reason, err)
	}
	if st, _ := w.State(); st != store.WorkerQuarantined {
		t.Fatalf("the worker obeys %s; want quarantined", st)
	}
	if n := testutil.ToFloat64(m.SelfChecks.WithLabelValues("fail")); n < 3 {
		t.Fatalf("oj_worker_self_checks_total{result=fail} = %v", n)
	}
}

// A quarantined worker whose self-check passes again lifts its own quarantine and judges
// what waited, with no operator's action.
func TestQuarantinedWorkerReturnsWhenItsSelfCheckPasses(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	ctx := context.Background()
	check := &selfCheck{}
	check.set(errors.New("worker self-check: a trivial sandboxed run failed: cgroup vanished"))
	m := newWorkerMetrics()
	w, j, ids := quarantine(t, h, "mended", errors.New("run: sandbox failure: cgroup vanished"), check, m)
	waitFor(t, func() bool { return check.calls.Load() >= 2 })
	j.Set(nil, 0) // the host is mended
	check.set(nil)
	for id, s := range h.waitTerminal(ids, 30*time.Second) {
		if s.State != job.StateFinished || s.Verdict != job.VerdictAC {
			t.Fatalf("submission %s after the self-check passed: %+v", id, s)
		}
	}
	st, reason, err := store.WorkerStateOf(ctx, h.db, "mended")
	if err != nil || st != store.WorkerActive || !strings.Contains(reason, "self-check passed") {
		t.Fatalf("state %s %q %v; want active, lifted by the self-check", st, reason, err)
	}
	if st, _ := w.State(); st != store.WorkerActive {
		t.Fatalf("the worker obeys %s", st)
	}
	if n := testutil.ToFloat64(m.QuarantinesLeft.WithLabelValues("self_check")); n != 1 {
		t.Fatalf("oj_worker_quarantines_left_total{by=self_check} = %v, want 1", n)
	}
}

// An operator's disable is never lifted by the self-check: not when it lands while the
// check runs (the check passes, the worker stays disabled), and the check is not run
// again while the worker is disabled.
func TestDisabledWorkerStaysDisabled(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	ctx := context.Background()
	o := ops.New(h.db, h.streams, nil, h.log)
	check := &selfCheck{}
	var disabled atomic.Bool
	check.during = func() {
		if disabled.CompareAndSwap(false, true) {
			if _, err := o.SetWorkerState(ctx, ops.Request{Actor: "op"}, ops.WorkerParams{Name: "apart", Reason: "host retired"},
				store.WorkerDisabled); err != nil {
				t.Error(err)
			}
		}
	}
	w, j, _ := quarantine(t, h, "apart", errors.New("run: sandbox failure: cgroup vanished"), check, nil)
	j.Set(nil, 0)
	waitFor(t, func() bool { st, _ := w.State(); return st == store.WorkerDisabled })
	calls := check.calls.Load()
	time.Sleep(time.Second) // several recheck periods
	st, reason, err := store.WorkerStateOf(ctx, h.db, "apart")
	if err != nil || st != store.WorkerDisabled || !strings.Contains(reason, "host retired") {
		t.Fatalf("state %s %q %v; want disabled as the operator left it", st, reason, err)
	}
	if st, _ := w.State(); st != store.WorkerDisabled {
		t.Fatalf("the worker obeys %s; want disabled", st)
	}
	if n := check.calls.Load(); n != calls || n != 1 {
		t.Fatalf("self-check ran %d times, then %d; want once, and never while disabled", calls, n)
	}
}
