package api

import (
	"net/http"
	"sync"
	"time"
)

// Draining. When the process stops (SIGTERM, a restart), the API does not close its
// listener at once: in `ojd all` the worker may still be finishing its judging for
// worker.shutdown_grace, and a client whose connection is refused meanwhile cannot tell
// a restart from a dead host. So from the stop on, the listener stays open and every new
// request (but /healthz and /metrics, which touch nothing) is answered 503 `unavailable`
// with a Retry-After, /readyz included, while the requests already in flight finish.
// Only when the rest of the process stopped and those requests ended (or
// api.shutdown_timeout passed) does the server close.

// drainRetryAfter is the Retry-After of an answer given while draining: a restart's drain
// and start take seconds.
const drainRetryAfter = 5 * time.Second

// drainGate counts the requests in flight and, once draining, admits no more.
type drainGate struct {
	mu       sync.Mutex
	draining bool
	inflight int
	idle     chan struct{} // closed when draining and nothing admitted is in flight
}

// enter admits a request; false once draining.
func (g *drainGate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.draining {
		return false
	}
	g.inflight++
	return true
}

// leave ends an admitted request.
func (g *drainGate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inflight--
	if g.draining && g.inflight == 0 && g.idle != nil {
		close(g.idle)
		g.idle = nil
	}
}

// drain admits no more requests; the channel is closed once none admitted is in flight.
func (g *drainGate) drain() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	ch := make(chan struct{})
	g.draining = true
	if g.inflight == 0 {
		close(ch)
	} else {
		g.idle = ch
	}
	return ch
}

// drainExempt are the routes answered as usual while draining: liveness (the process is
// alive, and a probe that restarted it now would cut the drain short) and the metrics.
func drainExempt(r *http.Request) bool {
	return r.URL.Path == "/healthz" || r.URL.Path == "/metrics"
}

// errDraining is the answer to a request that came while the server drains.
func errDraining() *apiError {
	return &apiError{status: http.StatusServiceUnavailable, code: codeUnavailable,
		msg: "the server is shutting down (a restart): retry after the Retry-After delay", retryAfter: drainRetryAfter}
}
