package worker_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"oj/core/dispatch"
	"oj/core/store"
	"oj/core/webhook"
)

// BenchmarkPipelineWebhook: the drain of BenchmarkPipelineThroughput (10,000 committed
// submissions, fair release, immediate judge) with no webhook endpoint and with one that
// receives every event (a receiver in this process answering 204), in one run. It
// reports each drain's finalized/s and their ratio — the webhooks' cost to judging, whose
// target is within 10 % — and, with the endpoint, how long its deliveries (one per
// submission event) took to be delivered, counted from the same start.
// Run: make bench BENCH=PipelineWebhook PKGS=./core/worker/
func BenchmarkPipelineWebhook(b *testing.B) {
	const n = 10_000
	drain := map[string]time.Duration{}
	var delivered int64
	var hooksDone time.Duration
	for _, mode := range []string{"no endpoint", "one endpoint"} {
		b.Run(mode, func(b *testing.B) {
			for range b.N {
				h := benchHarness(b)
				var got atomic.Int64
				if mode == "one endpoint" {
					srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						_, _ = io.Copy(io.Discard, r.Body)
						got.Add(1)
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
				start := time.Now()
				h.startDispatcher()
				benchWorker(h)
				h.waitFinished(n, 5*time.Minute)
				d := time.Since(start)
				drain[mode] = d
				b.ReportMetric(float64(n)/d.Seconds(), "finalized/s")
				if mode != "one endpoint" {
					continue
				}
				want := h.count(`SELECT count(*) FROM events WHERE type LIKE 'submission.%'`)
				deadline := time.Now().Add(5 * time.Minute)
				for h.count(`SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered'`) < want {
					if time.Now().After(deadline) {
						b.Fatalf("webhooks not drained within 5 min: %d of %d delivered", got.Load(), want)
					}
					time.Sleep(20 * time.Millisecond)
				}
				hooksDone = time.Since(start)
				delivered = int64(want)
				b.ReportMetric(float64(want)/hooksDone.Seconds(), "delivered/s")
			}
		})
	}
	none, one := drain["no endpoint"], drain["one endpoint"]
	if none == 0 || one == 0 {
		return
	}
	fmt.Printf("\npipeline drain with and without a webhook endpoint (%d submissions, immediate judge, this machine)\n", n)
	fmt.Printf("  %-40s %10.0f /s  (%s)\n", "no endpoint: committed → finalized", float64(n)/none.Seconds(), none.Round(time.Millisecond))
	fmt.Printf("  %-40s %10.0f /s  (%s)\n", "one endpoint: committed → finalized", float64(n)/one.Seconds(), one.Round(time.Millisecond))
	fmt.Printf("  %-40s %10.2f   (target ≥ 0.90)\n", "finalized/s, one endpoint ÷ none", none.Seconds()/one.Seconds())
	fmt.Printf("  %-40s %10d in %s (%.0f /s)\n", "webhooks delivered (every event)", delivered, hooksDone.Round(time.Millisecond),
		float64(delivered)/hooksDone.Seconds())
}
