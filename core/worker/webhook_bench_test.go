package worker_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"oj/core/dispatch"
	"oj/core/store"
	"oj/core/testenv"
	"oj/core/webhook"
)

// BenchmarkPipelineWebhook: the drain of BenchmarkPipelineThroughput (10,000 committed
// submissions, fair release, immediate judge) with no webhook endpoint and with one that
// receives every event (a receiver in this process answering 204), five rounds of each,
// interleaved (the order alternates) so that a load elsewhere on the machine weighs on
// both alike: PostgreSQL commits with fsync on, and one drain can take three times
// another of the same kind on a shared disk. It reports the median finalized/s of each
// and their ratio — the webhooks' cost to judging, whose target is within 10 % — and,
// with the endpoint, how long its deliveries (one per submission event) took to be
// delivered, from the same start; then the CPU PostgreSQL and this process used per
// 1,000 submissions in each mode, which the disk does not blur.
// Run: make bench BENCH=PipelineWebhook PKGS=./core/worker/
func BenchmarkPipelineWebhook(b *testing.B) {
	const n, rounds = 10_000, 5
	modes := []string{"no endpoint", "one endpoint"}
	drains := map[string][]time.Duration{}
	pgCPU, ownCPU := map[string]time.Duration{}, map[string]time.Duration{}
	pg := testenv.Pool(b, testenv.PostgresURL(b))
	var hookDrains []time.Duration
	var delivered int
	for range b.N {
		for r := range rounds {
			for i := range modes {
				mode := modes[(i+r)%2]
				pg0, own0 := postgresCPU(b, pg), processCPU()
				d, hooks, want := drainOnce(b, n, mode == "one endpoint")
				pgCPU[mode] += postgresCPU(b, pg) - pg0
				ownCPU[mode] += processCPU() - own0
				drains[mode] = append(drains[mode], d)
				if hooks > 0 {
					hookDrains, delivered = append(hookDrains, hooks), want
				}
				fmt.Printf("round %d, %-12s  finalized %6.0f /s (%s)", r+1, mode, float64(n)/d.Seconds(), d.Round(time.Millisecond))
				if hooks > 0 {
					fmt.Printf("; webhooks %d delivered in %s", want, hooks.Round(time.Millisecond))
				}
				fmt.Println()
			}
		}
	}
	none, one, hooks := median(drains[modes[0]]), median(drains[modes[1]]), median(hookDrains)
	b.ReportMetric(float64(n)/none.Seconds(), "finalized/s-none")
	b.ReportMetric(float64(n)/one.Seconds(), "finalized/s-one")
	b.ReportMetric(float64(delivered)/hooks.Seconds(), "delivered/s")
	fmt.Printf("\npipeline drain with and without a webhook endpoint (%d submissions, immediate judge, this machine; medians of %d)\n", n, rounds)
	fmt.Printf("  %-40s %10.0f /s  (%s)\n", "no endpoint: committed → finalized", float64(n)/none.Seconds(), none.Round(time.Millisecond))
	fmt.Printf("  %-40s %10.0f /s  (%s)\n", "one endpoint: committed → finalized", float64(n)/one.Seconds(), one.Round(time.Millisecond))
	fmt.Printf("  %-40s %10.2f   (target ≥ 0.90)\n", "finalized/s, one endpoint ÷ none", none.Seconds()/one.Seconds())
	fmt.Printf("  %-40s %10d in %s (%.0f /s)\n", "webhooks delivered (every event)", delivered, hooks.Round(time.Millisecond),
		float64(delivered)/hooks.Seconds())
	for _, mode := range modes {
		fmt.Printf("  %-40s %10.0f ms PostgreSQL, %.0f ms this process (all rounds, submits included)\n",
			"CPU per 1,000 submissions, "+mode, 1000*pgCPU[mode].Seconds()*1000/float64(n*rounds*b.N),
			1000*ownCPU[mode].Seconds()*1000/float64(n*rounds*b.N))
	}
}

// processCPU is the CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// postgresCPU is the CPU time the benchmark's PostgreSQL server has used: its postmaster
// with the backends it has reaped, and the backends alive now. 0 when the server is not
// on this machine.
func postgresCPU(b *testing.B, db *pgxpool.Pool) time.Duration {
	var backend int
	if err := db.QueryRow(context.Background(), `SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		b.Fatal(err)
	}
	stat := func(pid int) []string {
		raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return nil
		}
		// The fields after the command's closing parenthesis, from the state (field 3).
		return strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	}
	f := stat(backend)
	if f == nil {
		return 0
	}
	postmaster, _ := strconv.Atoi(f[1])
	ticks := func(f []string, from, to int) (t int64) {
		for i := from; i <= to && i < len(f); i++ {
			v, _ := strconv.ParseInt(f[i], 10, 64)
			t += v
		}
		return t
	}
	// Fields 14-17 (utime, stime, cutime, cstime) are 11-14 here.
	total := ticks(stat(postmaster), 11, 14)
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := stat(pid); len(f) > 14 && f[1] == strconv.Itoa(postmaster) {
			total += ticks(f, 11, 12)
		}
	}
	return time.Duration(total) * time.Second / 100 // USER_HZ
}

// drainOnce commits n submissions, then runs the dispatcher and a worker until every one
// is finalized; with an endpoint, it then waits until every submission event is
// delivered. It returns both times from the dispatcher's start, and the deliveries.
func drainOnce(b *testing.B, n int, endpoint bool) (drain, hooks time.Duration, deliveries int) {
	h := benchHarness(b)
	if endpoint {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.WriteHeader(http.StatusNoContent)
		}))
		defer srv.Close()
		h.dcfg.Webhooks.AllowPrivate = true // the receiver is on 127.0.0.1
		h.disp = dispatch.New(h.dcfg, h.db, h.streams, h.clock, h.log, dispatch.NewMetrics(nil))
		secret, err := webhook.NewSecret()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := store.CreateWebhookEndpoint(context.Background(), h.db, store.NewWebhookEndpoint{
			URL: srv.URL, Secret: secret, Now: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
	submitConcurrently(b, h, n, 16)
	h.readyToDrain(b)
	start := time.Now()
	stopDispatcher := h.startDispatcher()
	stopWorker := h.startWorker(benchWorkerConfig(), newScripted(nil))
	defer func() { stopWorker(); stopDispatcher() }()
	h.waitFinished(n, 5*time.Minute)
	drain = time.Since(start)
	if !endpoint {
		return drain, 0, 0
	}
	want := h.count(`SELECT count(*) FROM events WHERE type LIKE 'submission.%'`)
	deadline := time.Now().Add(5 * time.Minute)
	for h.count(`SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered'`) < want {
		if time.Now().After(deadline) {
			b.Fatalf("webhooks not drained within 5 min (%d events)", want)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return drain, time.Since(start), want
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
