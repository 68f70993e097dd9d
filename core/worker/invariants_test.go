package worker_test

import (
	"context"
	"errors"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"oj/core/clock"
	"oj/core/dispatch"
	"oj/core/job"
	"oj/core/store"
	"oj/core/stream"
	"oj/core/testenv"
	"oj/core/worker"
)

// The happy path end to end, and invariant 1: the verdict lives in PostgreSQL; Redis
// entries carry only the submission id and trace id, and losing every key loses nothing.
func TestPipelineJudgesAndStateLivesInPostgres(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	h.startDispatcher()
	j := newScripted(nil)
	h.startWorker(testWorkerConfig("w1"), j)
	ids := append(h.submit(20, job.LaneLight, 3), h.submit(10, job.LaneHeavy, 3)...)
	done := h.waitTerminal(ids, 20*time.Second)
	for _, id := range ids {
		if s := done[id]; s.State != job.StateFinished || s.Verdict != job.VerdictAC || s.Attempt != 1 {
			t.Fatalf("submission %s: %+v", id, s)
		}
	}
	ctx := context.Background()
	msgs, err := h.streams.Client().XRange(ctx, h.streams.Keys.Jobs(job.LaneLight), "-", "+").Result()
	if err != nil || len(msgs) != 20 {
		t.Fatalf("light stream: %d entries, %v", len(msgs), err)
	}
	for _, m := range msgs {
		if len(m.Values) != 2 || m.Values[stream.FieldSubmission] == nil || m.Values[stream.FieldTrace] == nil {
			t.Fatalf("entry carries more than ids: %v", m.Values)
		}
	}
	if h.pending(job.LaneLight) != 0 || h.pending(job.LaneHeavy) != 0 {
		t.Fatal("entries left pending after finalize")
	}
	for _, lane := range []job.Lane{job.LaneLight, job.LaneHeavy} {
		h.streams.Client().Del(ctx, h.streams.Keys.Jobs(lane))
	}
	for _, id := range ids {
		s, err := store.GetSubmission(ctx, h.db, id)
		if err != nil || s.Verdict != job.VerdictAC {
			t.Fatalf("after deleting the streams: %+v %v", s, err)
		}
	}
}

// Invariant 3: the judge runs only after the claim committed.
func TestJudgeRunsOnlyAfterClaimCommitted(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	var bad atomic.Int32
	j := newScripted(func(task job.Task, _ int) (job.Outcome, error) {
		// Read through another connection: only committed data is visible.
		s, err := store.GetSubmission(context.Background(), h.db, task.SubmissionID)
		if err != nil || s.State != job.StateRunning || s.Attempt != task.Attempt || s.LeaseOwner != "w1" {
			bad.Add(1)
		}
		return job.Outcome{Verdict: job.VerdictAC}, nil
	})
	h.startDispatcher()
	h.startWorker(testWorkerConfig("w1"), j)
	h.waitTerminal(h.submit(10, job.LaneLight, 3), 20*time.Second)
	if bad.Load() != 0 {
		t.Fatalf("%d judgments started without a committed claim", bad.Load())
	}
}

// Duplicate delivery of one submission is judged once, and every entry is acked.
func TestDuplicateDeliveryJudgedOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	ids := h.submit(5, job.LaneLight, 3)
	ctx := context.Background()
	// Relay once, then add every entry twice more by hand: three deliveries each.
	if _, err := h.dispAll.RelayOnce(ctx); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		adds := make([]stream.Add, len(ids))
		for i, id := range ids {
			adds[i] = stream.Add{Stream: h.streams.Keys.Jobs(job.LaneLight), SubmissionID: id}
		}
		h.streams.AddBatch(ctx, adds)
	}
	j := newScripted(nil)
	j.SetDelay(50 * time.Millisecond)
	h.startWorker(testWorkerConfig("w1"), j)
	h.startWorker(testWorkerConfig("w2"), j)
	h.waitTerminal(ids, 20*time.Second)
	for _, id := range ids {
		if c := j.Calls(id); c != 1 {
			t.Fatalf("submission %s judged %d times", id, c)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for h.pending(job.LaneLight) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d duplicate entries left pending", h.pending(job.LaneLight))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Invariant 4 and 6 through a worker: a worker whose lease expired cannot write back; the
// stale attempt is rejected and counted; the reclaimer's attempt 2 wins.
func TestExpiredLeaseCannotWriteBack(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Now())
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), clk)
	ids := h.submit(1, job.LaneLight, 3)
	id := ids[0]
	ctx := context.Background()
	if _, err := h.disp.RelayOnce(ctx); err != nil {
		t.Fatal(err)
	}
	// The slow worker claims and then stalls in the judge until released.
	release := make(chan struct{})
	slow := newScripted(func(job.Task, int) (job.Outcome, error) {
		<-release
		return job.Outcome{Verdict: job.VerdictWA}, nil
	})
	cfgSlow := testWorkerConfig("slow")
	cfgSlow.HeartbeatInterval = time.Hour // it stops heart-beating: a hung worker
	cfgSlow.Lease = 2 * time.Hour
	slowMetrics := newWorkerMetrics()
	h.run(h.newWorker(cfgSlow, slow, slowMetrics).Run)
	waitFor(t, func() bool { return slow.Calls(id) == 1 })
	// Time passes beyond the lease; the fast worker's reclaim takes over with attempt 2.
	clk.Advance(3 * time.Hour)
	fast := newScripted(nil)
	h.startWorker(testWorkerConfig("fast"), fast)
	s := h.waitTerminal(ids, 20*time.Second)[id]
	if s.Verdict != job.VerdictAC || s.Attempt != 2 || fast.Calls(id) != 1 {
		t.Fatalf("after reclaim: %+v (fast calls %d)", s, fast.Calls(id))
	}
	close(release) // the stale worker now tries to write WA
	waitFor(t, func() bool {
		return testutil.ToFloat64(slowMetrics.FinalizeRejects.WithLabelValues("stale_attempt")) == 1
	})
	if s, _ := store.GetSubmission(ctx, h.db, id); s.Verdict != job.VerdictAC || s.Attempt != 2 {
		t.Fatalf("the stale write-back changed the verdict: %+v", s)
	}
	hist, _ := store.SubmissionHistory(ctx, h.db, id)
	finished := 0
	for _, e := range hist {
		if e.Event == "finished" {
			finished++
		}
	}
	if finished != 1 {
		t.Fatalf("finished %d times: %+v", finished, hist)
	}
}

// Invariant 6: reclaim does not steal a live lease, even when the entry is idle in the
// pending list long enough for XAUTOCLAIM to hand it over.
func TestReclaimDoesNotStealLiveLease(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	ids := h.submit(1, job.LaneLight, 3)
	id := ids[0]
	release := make(chan struct{})
	holder := newScripted(func(job.Task, int) (job.Outcome, error) {
		<-release
		return job.Outcome{Verdict: job.VerdictAC}, nil
	})
	h.startDispatcher()
	cfg := testWorkerConfig("holder")
	cfg.Lease = time.Minute
	cfg.HeartbeatInterval = 100 * time.Millisecond
	h.startWorker(cfg, holder)
	waitFor(t, func() bool { return holder.Calls(id) == 1 })
	other := newScripted(nil)
	otherMetrics := newWorkerMetrics()
	h.run(h.newWorker(testWorkerConfig("other"), other, otherMetrics).Run)
	waitFor(t, func() bool {
		return testutil.ToFloat64(otherMetrics.Reclaimed.WithLabelValues("light", "leased")) >= 2
	})
	if other.Calls(id) != 0 {
		t.Fatal("a live lease was stolen")
	}
	close(release)
	s := h.waitTerminal(ids, 10*time.Second)[id]
	if s.Attempt != 1 || s.Verdict != job.VerdictAC {
		t.Fatalf("holder's verdict: %+v", s)
	}
}

// Invariant 7 through a worker: a submission that fails judging every time ends dead
// after max_attempts, visible as a dead letter and notified on the DLQ stream.
func TestAlwaysFailingSubmissionIsDeadLettered(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	j := newScripted(func(job.Task, int) (job.Outcome, error) { return job.Outcome{}, errors.New("sandbox: cgroup vanished") })
	h.startDispatcher()
	h.startWorker(testWorkerConfig("w1"), j)
	ids := h.submit(3, job.LaneHeavy, 3)
	done := h.waitTerminal(ids, 20*time.Second)
	ctx := context.Background()
	for _, id := range ids {
		s := done[id]
		if s.State != job.StateDead || s.Verdict != job.VerdictSE || s.Attempt != 3 || j.Calls(id) != 3 {
			t.Fatalf("dead submission %s: %+v, judged %d times", id, s, j.Calls(id))
		}
	}
	if n, _ := store.CountDeadLetters(ctx, h.db); n != 3 {
		t.Fatalf("dead letters = %d, want 3", n)
	}
	waitFor(t, func() bool {
		n, _ := h.streams.Client().XLen(ctx, h.streams.Keys.DLQ()).Result()
		return n == 3
	})
	waitFor(t, func() bool { return h.pending(job.LaneHeavy) == 0 })
}

// Invariant 9: a safe trim keeps every entry still pending or not yet delivered.
func TestSafeTrimKeepsNeededEntries(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	ctx := context.Background()
	lane := job.LaneLight
	if err := h.streams.EnsureGroup(ctx, lane); err != nil {
		t.Fatal(err)
	}
	add := func(n int) {
		adds := make([]stream.Add, n)
		for i := range adds {
			adds[i] = stream.Add{Stream: h.streams.Keys.Jobs(lane), SubmissionID: "x"}
		}
		h.streams.AddBatch(ctx, adds)
	}
	add(10)
	read, _ := h.streams.Read(ctx, lane, "c1", 6, 10*time.Millisecond) // 6 delivered
	if err := h.streams.Ack(ctx, lane, read[0].ID, read[1].ID, read[3].ID); err != nil {
		t.Fatal(err)
	}
	// Entries 0,1,3 acked; 2,4,5 pending; 6..9 undelivered. Safe trim drops only 0 and 1.
	dry, err := h.streams.TrimSafe(ctx, lane, true)
	if err != nil || dry.Before != 10 || dry.After != 8 {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	if n, _ := h.streams.Client().XLen(ctx, h.streams.Keys.Jobs(lane)).Result(); n != 10 {
		t.Fatal("dry run trimmed")
	}
	res, err := h.streams.TrimSafe(ctx, lane, false)
	if err != nil || res.After != 8 || res.MinID != read[2].ID {
		t.Fatalf("trim: %+v %v", res, err)
	}
	// Everything pending is still readable and claimable.
	_, claimed, deleted, err := h.streams.AutoClaim(ctx, lane, "c2", 0, "0-0", 100)
	if err != nil || len(claimed) != 3 || len(deleted) != 0 {
		t.Fatalf("pending after trim: %d claimed, %d deleted, %v", len(claimed), len(deleted), err)
	}
	rest, _ := h.streams.Read(ctx, lane, "c1", 100, 10*time.Millisecond)
	if len(rest) != 4 {
		t.Fatalf("undelivered after trim: %d, want 4", len(rest))
	}
	// With all acked, the safe trim empties the stream.
	ids := []string{read[2].ID, read[4].ID, read[5].ID}
	for _, e := range rest {
		ids = append(ids, e.ID)
	}
	h.streams.Ack(ctx, lane, ids...)
	if res, err := h.streams.TrimSafe(ctx, lane, false); err != nil || res.After != 0 {
		t.Fatalf("trim when all acked: %+v %v", res, err)
	}
}

// Deleted-while-pending entries reported by XAUTOCLAIM (Redis ≥ 7) reach the reconciler
// and the submission is judged anyway.
func TestEntriesTrimmedWhilePendingAreRedriven(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	ctx := context.Background()
	ids := h.submit(3, job.LaneLight, 3)
	if _, err := h.dispAll.RelayOnce(ctx); err != nil {
		t.Fatal(err)
	}
	// A consumer reads them and dies before claiming; the entries are then trimmed away.
	if err := h.streams.EnsureGroup(ctx, job.LaneLight); err != nil {
		t.Fatal(err)
	}
	if _, err := h.streams.Read(ctx, job.LaneLight, "ghost", 10, 10*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	h.streams.Client().XTrimMaxLen(ctx, h.streams.Keys.Jobs(job.LaneLight), 0)
	wm := newWorkerMetrics()
	j := newScripted(nil)
	stopDisp := h.run(func(ctx context.Context) error {
		// Relay only: no periodic reconcile, so the hand-off is what re-drives.
		for ctx.Err() == nil {
			h.disp.RelayOnce(ctx)
			time.Sleep(20 * time.Millisecond)
		}
		return nil
	})
	defer stopDisp()
	h.run(h.newWorker(testWorkerConfig("w1"), j, wm).Run)
	h.waitTerminal(ids, 20*time.Second)
	if got := testutil.ToFloat64(wm.LostEntries); got != 3 {
		t.Fatalf("deleted entries reported = %v, want 3", got)
	}
}

// Invariant 11: no metric carries a submission id (or any id) as a label value.
func TestMetricsCarryNoIDs(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	reg := prometheus.NewRegistry()
	h.disp = dispatch.New(h.dcfg, h.db, h.streams, h.clock, h.log, dispatch.NewMetrics(reg))
	h.startDispatcher()
	fails := newScripted(func(_ job.Task, call int) (job.Outcome, error) {
		if call == 1 {
			return job.Outcome{}, errors.New("transient")
		}
		return job.Outcome{Verdict: job.VerdictWA}, nil
	})
	h.run(h.newWorker(testWorkerConfig("w1"), fails, worker.NewMetrics(reg)).Run)
	ids := h.submit(5, job.LaneLight, 3)
	h.waitTerminal(ids, 20*time.Second)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	uuidish := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-|^[0-9]+$`)
	labels := 0
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				labels++
				if uuidish.MatchString(l.GetValue()) {
					t.Errorf("metric %s has label %s=%q", f.GetName(), l.GetName(), l.GetValue())
				}
			}
		}
	}
	if labels == 0 {
		t.Fatal("no labelled metrics were gathered")
	}
}
