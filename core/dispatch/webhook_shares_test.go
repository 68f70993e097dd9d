package dispatch_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"oj/core/store"
)

// blackHole accepts TCP connections and never answers: a receiver that went dark. It
// counts the connections and holds them until the test ends.
func blackHole(t *testing.T) (url string, accepted *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = new(atomic.Int64)
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String() + "/hook", accepted
}

// A black-holed endpoint beside a healthy one, 20 retries due on each, the black hole's
// the older: the black hole holds at most webhooks.concurrency_per_endpoint senders, and
// every one of the healthy endpoint's deliveries is delivered while its tries are still
// in flight (a try there lasts webhooks.timeout, minutes here) — not one of 20 while the
// black hole holds every sender. Counted in deliveries, not time.
func TestBlackHoledEndpointHoldsOnlyItsShareOfTheSenders(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t, nil)
	h.cfg.Webhooks.Concurrency = 4
	h.cfg.Webhooks.ConcurrencyPerEndpoint = 2
	h.cfg.Webhooks.Timeout = 5 * time.Minute
	h.cfg.Webhooks.Lease = 10 * time.Minute
	if err := h.cfg.Webhooks.Validate(); err != nil {
		t.Fatal(err)
	}
	darkURL, accepted := blackHole(t)
	var hits atomic.Int64
	healthy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(healthy.Close)
	dark, ok := h.endpoint(darkURL, nil, nil), h.endpoint(healthy.URL, nil, nil)

	ctx := context.Background()
	now := h.clk.Now()
	for _, ep := range []string{dark, ok} { // the black hole's first: oldest due first would take them all
		ds := make([]store.NewWebhookDelivery, 20)
		for i := range ds {
			ds[i] = store.NewWebhookDelivery{EndpointID: ep, EventType: "test", Payload: []byte(`{"type":"test"}`)}
		}
		if _, err := store.InsertWebhookDeliveries(ctx, h.db, ds, now.Add(-time.Minute), time.Hour); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Millisecond)
	}

	d, _ := h.dispatcher()
	sendCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); d.SendLoop(sendCtx) }()
	t.Cleanup(func() { stop(); <-done })

	delivered := func(ep string) int {
		return h.count(`SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'delivered'`, ep)
	}
	deadline := time.Now().Add(60 * time.Second)
	for delivered(ok) < 20 {
		if time.Now().After(deadline) {
			t.Fatalf("the healthy endpoint: %d of 20 delivered (%d requests) while the black hole took %d connections",
				delivered(ok), hits.Load(), accepted.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
	inFlight := h.count(`SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'
		AND lease_owner <> ''`, dark)
	tried := h.count(`SELECT coalesce(sum(attempts), 0) FROM webhook_deliveries WHERE endpoint_id = $1`, dark)
	if inFlight != 2 || tried != 2 || delivered(dark) != 0 {
		t.Fatalf("the black hole: %d tries in flight, %d tries made, %d delivered; want 2, 2 (its share) and 0",
			inFlight, tried, delivered(dark))
	}
	if n := accepted.Load(); n > 2 {
		t.Fatalf("the black hole accepted %d connections, more than its share of 2", n)
	}
}
