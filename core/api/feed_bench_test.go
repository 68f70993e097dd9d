package api_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"oj/core/api/client"
	"oj/core/job"
	"oj/core/store"
	"oj/core/wire"
)

// BenchmarkFeed: the results feed read to its head by one follower, then by 100 at once,
// over the same 20,000 events (queued and finished events of 10,000 submissions, with
// metadata and three cases each), as NDJSON through the real API. It reports events/s
// delivered, the process's CPU per 1,000 events delivered, and the heap after each
// phase. The API, PostgreSQL client and followers are one process here, so the CPU
// figure is an upper bound for the API's.
// Run: make bench BENCH=Feed PKGS=./core/api/
func BenchmarkFeed(b *testing.B) {
	const subs = 10_000
	e := newEnv(b, envOpts{noWorker: true})
	ctx := context.Background()
	cases := `[{"index":1,"subtask":0,"verdict":"AC","time_ms":3,"memory_kb":900,"score":33.3,"message":""},
		{"index":2,"subtask":0,"verdict":"AC","time_ms":4,"memory_kb":900,"score":33.3,"message":""},
		{"index":3,"subtask":0,"verdict":"WA","time_ms":5,"memory_kb":900,"score":0,"message":"wrong answer"}]`
	for i := 0; i < subs; i += 500 {
		var ids []string
		for j := 0; j < 500; j++ {
			id, err := store.InsertSubmission(ctx, e.db, store.NewSubmission{ProblemID: "aplusb", ProblemVersion: 1,
				Language: "python3", Lane: job.LaneLight, Source: "print(1)", TraceID: "bench",
				Metadata: map[string]string{"contest": "bench", "user": fmt.Sprint(i + j)}})
			if err != nil {
				b.Fatal(err)
			}
			ids = append(ids, id)
		}
		if _, err := e.db.Exec(ctx, `UPDATE submissions SET state = 'finished', verdict = 'WA', score = 66.6,
			time_ms = 5, memory_kb = 900, attempt = 1, cases = $2::jsonb, finished_at = now() WHERE id = ANY($1::uuid[])`, ids, cases); err != nil {
			b.Fatal(err)
		}
	}
	read := func(c *client.Client) int {
		n := 0
		q := client.FeedQuery{Types: []string{wire.EventQueued, wire.EventFinished}}
		if _, err := c.Feed(ctx, q, func(wire.Event) error { n++; return nil }); err != nil {
			b.Error(err)
		}
		return n
	}
	total := 2 * subs
	// The feed's head waits for transactions running elsewhere: wait until it is all there.
	for deadline := time.Now().Add(time.Minute); read(e.admin) < total; {
		if time.Now().After(deadline) {
			b.Fatalf("the feed never reached its %d events", total)
		}
		time.Sleep(100 * time.Millisecond)
	}
	readers := make([]*client.Client, 100) // a token each: a token's streams are bounded
	for i := range readers {
		readers[i] = e.client(fmt.Sprintf("reader-%d", i), "reader")
	}
	for range b.N {
		for _, followers := range []int{1, 100} {
			runtime.GC()
			cpu0 := cpuTime()
			start := time.Now()
			var wg sync.WaitGroup
			var mu sync.Mutex
			delivered := 0
			for i := range followers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					n := read(readers[i])
					mu.Lock()
					delivered += n
					mu.Unlock()
				}()
			}
			wg.Wait()
			d := time.Since(start)
			cpu := cpuTime() - cpu0
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if delivered != followers*total {
				b.Fatalf("%d followers got %d events, want %d", followers, delivered, followers*total)
			}
			rate := float64(delivered) / d.Seconds()
			b.ReportMetric(rate, fmt.Sprintf("events/s/%dfollowers", followers))
			fmt.Printf("\nresults feed to its head, %d follower(s), %d events each (NDJSON, real API, PostgreSQL on this machine)\n", followers, total)
			fmt.Printf("  %-34s %12.0f events/s  (%s)\n", "delivered", rate, d.Round(time.Millisecond))
			fmt.Printf("  %-34s %12.2f ms per 1,000 events\n", "process CPU (API + followers)", float64(cpu.Milliseconds())/float64(delivered)*1000)
			fmt.Printf("  %-34s %12.1f MiB\n", "heap in use after", float64(ms.HeapInuse)/(1<<20))
		}
	}
}

// cpuTime is this process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
