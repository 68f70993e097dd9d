package worker_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"oj/core/job"
	"oj/core/judge"
	"oj/core/testenv"
	"oj/core/worker"
)

// A judging slot is free as soon as the judge returns: with the write-back held after its
// commit (nothing acked, every token taken), the lane still claims and judges up to
// concurrency more submissions, and no more than that — 2×concurrency claimed at most.
// Once the write-back goes on, everything finishes, each judged once.
func TestJudgingSlotFreeDuringWriteBack(t *testing.T) {
	for _, n := range []int{1, 2} {
		t.Run(fmt.Sprintf("concurrency=%d", n), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
			ids := h.submit(2*n+3, job.LaneLight, 3)
			relayAll(t, h)

			gate := make(chan struct{})
			var commits atomic.Int32
			var once sync.Once
			open := func() { once.Do(func() { close(gate) }) }
			j := newScripted(nil)
			m := newWorkerMetrics()
			cfg := testWorkerConfig("w1")
			cfg.Concurrency = map[string]int{"light": n}
			w := h.newWorker(cfg, j, m)
			worker.AfterCommit(w, func() { commits.Add(1); <-gate })
			h.run(w.Run)
			t.Cleanup(open) // runs before the worker's stop: a failed test never leaves the finalizer blocked

			answered := func() int {
				k := 0
				for _, id := range ids {
					if j.Answered(id) > 0 {
						k++
					}
				}
				return k
			}
			// The first write-back is held after its commit; the judges that returned since
			// wait for a write-back token.
			waitFor(t, func() bool { return commits.Load() >= 1 && answered() >= 2*n })
			judged := 0
			for _, id := range ids {
				judged += j.Calls(id)
			}
			if judged != 2*n {
				t.Fatalf("%d judgments started with the write-back held, want exactly %d (2×concurrency)", judged, 2*n)
			}
			if g := testutil.ToFloat64(m.InFlight.WithLabelValues("light")); g != float64(2*n) {
				t.Fatalf("in flight = %v with the write-back held, want %d", g, 2*n)
			}
			// Nothing was acked: every claimed entry still waits for its write-back.
			if p := h.pending(job.LaneLight); p != int64(2*n) {
				t.Fatalf("pending entries = %d with the write-back held, want %d", p, 2*n)
			}
			if c := h.count(`SELECT count(*) FROM submissions WHERE id = ANY($1) AND state = 'queued'`, ids); c != len(ids)-2*n {
				t.Fatalf("%d submissions still queued, want %d: more were claimed than write-back allows", c, len(ids)-2*n)
			}

			open()
			for id, s := range h.waitTerminal(ids, 20*time.Second) {
				if s.State != job.StateFinished || s.Verdict != job.VerdictAC || s.Attempt != 1 || j.Calls(id) != 1 {
					t.Fatalf("%s: %+v, judged %d times", id, s, j.Calls(id))
				}
			}
			waitFor(t, func() bool {
				return h.pending(job.LaneLight) == 0 && testutil.ToFloat64(m.InFlight.WithLabelValues("light")) == 0
			})
		})
	}
}

// keeping is a Decider whose artefacts wait for the test: it records, for each
// submission, how often Keep ran and whether the verdict was already written then.
type keeping struct {
	scripted *testenv.Judge
	h        *harness
	gate     chan struct{}
	waiting  atomic.Int32
	mu       sync.Mutex
	kept     map[string]int
	late     []string // submissions already finished when their artefacts were kept
}

// Judge is the worker's Judge; the worker calls Decide instead.
func (k *keeping) Judge(ctx context.Context, t job.Task) (job.Outcome, error) {
	return k.scripted.Judge(ctx, t)
}

func (k *keeping) Decide(ctx context.Context, t job.Task) (judge.Decision, error) {
	out, err := k.scripted.Judge(ctx, t)
	if err != nil {
		return judge.Decision{}, err
	}
	return judge.Decision{Outcome: out, Keep: func(ctx context.Context) {
		k.waiting.Add(1)
		select {
		case <-k.gate:
		case <-ctx.Done():
		}
		finished := k.h.count(`SELECT count(*) FROM submissions WHERE id = $1 AND state = 'finished'`, t.SubmissionID)
		k.mu.Lock()
		defer k.mu.Unlock()
		k.kept[t.SubmissionID]++
		if finished > 0 {
			k.late = append(k.late, t.SubmissionID)
		}
	}}, nil
}

// A decision's artefacts are kept after the judging slot is free and before the verdict
// is written: with every Keep held, the lane judges 2×concurrency submissions (the
// slot went on to the next one) and writes no verdict; once released, each verdict
// lands after its artefacts, every submission judged and kept once.
func TestArtefactsKeptOffTheJudgingSlot(t *testing.T) {
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	ids := h.submit(5, job.LaneLight, 3)
	relayAll(t, h)
	k := &keeping{scripted: newScripted(nil), h: h, gate: make(chan struct{}), kept: map[string]int{}}
	var once sync.Once
	open := func() { once.Do(func() { close(k.gate) }) }
	cfg := testWorkerConfig("w1")
	cfg.Concurrency = map[string]int{"light": 1}
	w := h.newWorker(cfg, k, newWorkerMetrics())
	h.run(w.Run)
	t.Cleanup(open)

	answered := func() int {
		n := 0
		for _, id := range ids {
			n += k.scripted.Answered(id)
		}
		return n
	}
	waitFor(t, func() bool { return k.waiting.Load() >= 1 && answered() >= 2 })
	judged := 0
	for _, id := range ids {
		judged += k.scripted.Calls(id)
	}
	if judged != 2 {
		t.Fatalf("%d judgments started with the artefacts held, want 2 (the slot is free while they are kept, then write-back tokens run out)", judged)
	}
	if c := h.count(`SELECT count(*) FROM submissions WHERE id = ANY($1) AND state = 'finished'`, ids); c != 0 {
		t.Fatalf("%d verdicts written before their artefacts were kept", c)
	}

	open()
	for id, s := range h.waitTerminal(ids, 20*time.Second) {
		if s.State != job.StateFinished || s.Verdict != job.VerdictAC || s.Attempt != 1 || k.scripted.Calls(id) != 1 {
			t.Fatalf("%s: %+v, judged %d times", id, s, k.scripted.Calls(id))
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, id := range ids {
		if k.kept[id] != 1 {
			t.Errorf("%s: artefacts kept %d times, want 1", id, k.kept[id])
		}
	}
	if len(k.late) > 0 {
		t.Errorf("verdicts written before their artefacts were kept: %v", k.late)
	}
}
