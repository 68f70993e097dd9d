package worker_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"oj/core/job"
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
