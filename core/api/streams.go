package api

import (
	"fmt"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"oj/core/store"
)

// Long-lived answers (a submission's event stream, and the results feed) each hold a
// connection — a file descriptor — for as long as the client wants. Unbounded, one token
// opening twenty thousand of them took ojd to its descriptor limit: /healthz stopped
// answering and, in `ojd all`, judgments failed with "too many open files". So streams
// are bounded per token and in all, and the total never exceeds half of the process's
// descriptor limit: the other half stays for PostgreSQL, Redis, the object store and,
// in `ojd all`, judging. Past a bound the answer is 429 with Retry-After.

// streamGate counts open streams by token.
type streamGate struct {
	mu      sync.Mutex
	byToken map[int64]int
	open    int
	perUser int
	total   int

	gauge   prometheus.Gauge
	refused *prometheus.CounterVec
}

// fdShare is the fraction of the descriptor limit streams may take.
const fdShare = 2

// newStreamGate bounds streams at perUser per token and total in all, total clamped to
// half the process's descriptor limit (RLIMIT_NOFILE's soft limit, which Go raises to the
// hard one at start).
func newStreamGate(perUser, total int, reg prometheus.Registerer) *streamGate {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err == nil && rl.Cur > 0 && rl.Cur < 1<<40 {
		total = min(total, int(rl.Cur/fdShare))
	}
	g := &streamGate{byToken: map[int64]int{}, perUser: perUser, total: total,
		gauge: prometheus.NewGauge(prometheus.GaugeOpts{Name: "oj_api_streams_open",
			Help: "Event streams (a submission's events, the results feed) open now."}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "oj_api_streams_refused_total",
			Help: "Event streams refused: over the per-token bound (token) or over the total (all)."}, []string{"bound"})}
	reg.MustRegister(g.gauge, g.refused)
	return g
}

// enter admits a stream of tok's, or says why not. release must be called once the
// stream ends.
func (g *streamGate) enter(tok *store.Token) (release func(), aerr *apiError) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.open >= g.total:
		g.refused.WithLabelValues("all").Inc()
		return nil, &apiError{status: http.StatusTooManyRequests, code: codeTooManyStreams, retryAfter: 10 * time.Second,
			msg: fmt.Sprintf("the server has %d event streams open, its most (api.limits.max_streams, at most half the open-file limit); "+
				"retry later, or poll GET /api/v1/submissions/{id}", g.open)}
	case g.perUser > 0 && g.byToken[tok.ID] >= g.perUser:
		g.refused.WithLabelValues("token").Inc()
		return nil, &apiError{status: http.StatusTooManyRequests, code: codeTooManyStreams, retryAfter: 10 * time.Second,
			msg: fmt.Sprintf("this token has %d event streams open, the most a token may have (api.limits.max_streams_per_token); "+
				"close one first", g.byToken[tok.ID])}
	}
	g.open++
	g.byToken[tok.ID]++
	g.gauge.Set(float64(g.open))
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.open--
			if g.byToken[tok.ID]--; g.byToken[tok.ID] <= 0 {
				delete(g.byToken, tok.ID)
			}
			g.gauge.Set(float64(g.open))
		})
	}, nil
}

// followerGate bounds the results feed's followers in all (api.limits.max_feed_followers):
// each one reads PostgreSQL at every commit of events, so their number is the feed's cost.
type followerGate struct {
	mu    sync.Mutex
	open  int
	max   int
	gauge prometheus.Gauge
}

func newFollowerGate(max int, reg prometheus.Registerer) *followerGate {
	g := &followerGate{max: max, gauge: prometheus.NewGauge(prometheus.GaugeOpts{Name: "oj_api_feed_followers",
		Help: "Followers of the results feed (GET /api/v1/events) now."})}
	reg.MustRegister(g.gauge)
	return g
}

func (g *followerGate) enter() (leave func(), aerr *apiError) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open >= g.max {
		return nil, &apiError{status: http.StatusTooManyRequests, code: codeTooManyStreams, retryAfter: 10 * time.Second,
			msg: fmt.Sprintf("the results feed has %d followers, its most (api.limits.max_feed_followers); retry later", g.open)}
	}
	g.open++
	g.gauge.Set(float64(g.open))
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.open--
			g.gauge.Set(float64(g.open))
		})
	}, nil
}
