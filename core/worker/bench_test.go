package worker_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/store"
	"oj/core/testenv"
	"oj/core/worker"
)

// benchHarness is a pipeline with an immediate judge and one worker with enough slots
// that judging never waits for one: the benchmarks measure the core, not judging.
func benchHarness(b *testing.B) *harness {
	h := newHarness(b, testenv.PostgresURL(b), testenv.RedisAddr(b), nil)
	h.dcfg.ReconcileInterval = time.Minute
	return h
}

func benchWorker(h *harness) { h.startWorker(benchWorkerConfig(), newScripted(nil)) }

// benchWorkerConfig is the benchmarks' worker: enough slots that judging never waits.
func benchWorkerConfig() worker.Config {
	cfg := testWorkerConfig("bench")
	cfg.Concurrency = map[string]int{"light": 512}
	cfg.Lease = time.Minute
	cfg.HeartbeatInterval = 10 * time.Second
	cfg.ReclaimInterval = time.Minute
	cfg.ReclaimMinIdle = time.Minute
	cfg.FinalizeBatch = 256
	return cfg
}

// submitConcurrently commits n submissions from k goroutines and returns how long it took.
func submitConcurrently(b *testing.B, h *harness, n, k int) time.Duration {
	start := time.Now()
	var wg sync.WaitGroup
	per := n / k
	for range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				if _, err := store.Submit(context.Background(), h.db, store.NewSubmission{ProblemID: "aplusb",
					ProblemVersion: 1, Language: "python3", Lane: job.LaneLight, Source: "print(1)", TraceID: "bench"}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start)
}

// readyToDrain makes every drain start alike: with the tables' statistics (in a fresh
// schema the planner otherwise plans for empty tables until autoanalyze comes, at a
// moment of its own, and one drain took four times another of the same kind), and with
// the submits' dirty pages written (fsync is on).
func (h *harness) readyToDrain(b *testing.B) {
	if _, err := h.db.Exec(context.Background(), `DO $$ DECLARE t text; BEGIN
		    FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() LOOP
		        EXECUTE format('ANALYZE %I', t);
		    END LOOP; END $$`); err != nil {
		b.Fatal(err)
	}
	if _, err := h.db.Exec(context.Background(), `CHECKPOINT`); err != nil {
		b.Fatal(err)
	}
}

func (h *harness) waitFinished(n int, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for h.count(`SELECT count(*) FROM submissions WHERE state = 'finished'`) < n {
		if time.Now().After(deadline) {
			h.t.Fatalf("not all %d finished within %s", n, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for h.pending(job.LaneLight) != 0 {
		time.Sleep(5 * time.Millisecond)
	}
}

// BenchmarkPipelineThroughput: 20,000 committed submissions drained through relay →
// stream → claim → judge (immediate) → fenced finalize → XACK; with fair release (the
// default) and with every row relayed at once, in one run, for their ratio.
func BenchmarkPipelineThroughput(b *testing.B) {
	const n = 20000
	for _, mode := range []struct {
		name string
		fair bool
	}{{"fair", true}, {"all-at-once", false}} {
		b.Run(mode.name, func(b *testing.B) {
			for range b.N {
				h := benchHarness(b)
				if !mode.fair {
					h.withoutFairRelease()
				}
				submitDur := submitConcurrently(b, h, n, 16)
				h.readyToDrain(b)
				start := time.Now()
				h.startDispatcher()
				benchWorker(h)
				h.waitFinished(n, 5*time.Minute)
				d := time.Since(start)
				b.ReportMetric(float64(n)/d.Seconds(), "finalized/s")
				b.ReportMetric(float64(n)/submitDur.Seconds(), "committed/s")
				fmt.Printf("\npipeline throughput, %s release (immediate judge, PostgreSQL + Redis on this machine)\n", mode.name)
				fmt.Printf("  %-44s %10d\n", "submissions", n)
				fmt.Printf("  %-44s %10.0f /s\n", "submit: committed (16 clients, 1 tx each)", float64(n)/submitDur.Seconds())
				fmt.Printf("  %-44s %10.0f /s  (%s)\n", "pipeline: committed → finalized and acked", float64(n)/d.Seconds(), d.Round(time.Millisecond))
			}
		})
	}
}

// BenchmarkPipelineLatency: a steady 500 submissions/s for 10 s; commit-to-finalize
// latency percentiles (finished_at − created_at, both on this machine).
func BenchmarkPipelineLatency(b *testing.B) {
	const rate, seconds = 500, 10
	for range b.N {
		h := benchHarness(b)
		h.startDispatcher()
		benchWorker(h)
		tick := time.NewTicker(time.Second / rate)
		var wg sync.WaitGroup
		sem := make(chan struct{}, 64)
		for i := 0; i < rate*seconds; i++ {
			<-tick.C
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				if _, err := store.Submit(context.Background(), h.db, store.NewSubmission{ProblemID: "aplusb",
					ProblemVersion: 1, Language: "python3", Lane: job.LaneLight, Source: "print(1)", TraceID: "bench"}); err != nil {
					b.Error(err)
				}
			}()
		}
		tick.Stop()
		wg.Wait()
		h.waitFinished(rate*seconds, time.Minute)
		rows, err := h.db.Query(context.Background(),
			`SELECT extract(epoch FROM finished_at - created_at) FROM submissions WHERE state = 'finished'`)
		if err != nil {
			b.Fatal(err)
		}
		var lat []float64
		for rows.Next() {
			var s float64
			_ = rows.Scan(&s)
			lat = append(lat, s*1000)
		}
		rows.Close()
		sort.Float64s(lat)
		p := func(q float64) float64 { return lat[int(q*float64(len(lat)-1))] }
		b.ReportMetric(p(0.50), "p50-ms")
		b.ReportMetric(p(0.99), "p99-ms")
		fmt.Printf("\npipeline latency at %d submissions/s for %d s (commit → finalize)\n", rate, seconds)
		fmt.Printf("  %-8s %8.2f ms\n  %-8s %8.2f ms\n  %-8s %8.2f ms\n", "p50", p(0.50), "p99", p(0.99), "max", lat[len(lat)-1])
	}
}
