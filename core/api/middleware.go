package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"oj/core/store"
)

// reqInfo is what a request's handlers tell the request log.
type reqInfo struct {
	traceID      string
	token        *store.Token
	submissionID string
	errCode      string
	err          error
	// body is the route's body limit (limitBody); discarded counts the body bytes read
	// and thrown away before the answer, and lingerCut says why the rest was not (linger.go).
	body      bodyLimit
	discarded int64
	lingerCut error
}

type ctxKey struct{}

func infoFrom(ctx context.Context) *reqInfo {
	i, _ := ctx.Value(ctxKey{}).(*reqInfo)
	return i
}

// metrics of the API: labels are the route pattern and the status, never an id
// (invariant 11).
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	submits  *prometheus.CounterVec
	runs     *prometheus.CounterVec
	// unrenderable counts what could not be rendered or encoded, by where it was to go
	// (unrenderableFeed, unrenderableEvents, unrenderableAnswer).
	unrenderable *prometheus.CounterVec
}

// Where something could not be rendered: a feed event (sent as its stand-in), a
// submission's Server-Sent Event (sent without the submission), a JSON answer (a 500).
const (
	unrenderableFeed   = "feed"
	unrenderableEvents = "events"
	unrenderableAnswer = "answer"
)

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "oj_api_requests_total",
			Help: "HTTP requests by route pattern and status code."}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "oj_api_request_duration_seconds",
			Help:    "HTTP request latency by route pattern and status code.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}}, []string{"route", "code"}),
		submits: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "oj_api_submits_total",
			Help: "Submit outcomes: accepted, replayed, rate_limited, backlog, rejected, unavailable."}, []string{"outcome"}),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "oj_api_runs_total",
			Help: "Run outcomes: accepted, rate_limited, live_limit, backlog, rejected, unavailable."}, []string{"outcome"}),
	}
	m.unrenderable = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "oj_api_unrenderable_total",
		Help: "Stored values the API could not render or encode, by where: feed (an event sent as its stand-in), " +
			"events (a submission's event sent without the submission), answer (a 500 instead of the answer)."}, []string{"where"})
	for _, w := range []string{unrenderableFeed, unrenderableEvents, unrenderableAnswer} {
		m.unrenderable.WithLabelValues(w)
	}
	reg.MustRegister(m.requests, m.latency, m.submits, m.runs, m.unrenderable)
	return m
}

// statusWriter remembers the status for the log and the metrics, passes Flush through
// for event streams, and before the answer starts has what is left of the request body
// read (lingerer.drain), so that a client still sending it gets the answer.
type statusWriter struct {
	http.ResponseWriter
	status int
	linger *lingerer
	// encodeErr is why writeJSON could not encode the answer (it sent a 500 instead).
	encodeErr error
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		w.linger.drain(w.ResponseWriter)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// traceID takes the client's X-Trace-Id when it is a sane token, else makes one. It is
// stored with a submission, so it follows it into the dispatcher's and workers' logs.
func traceID(r *http.Request) string {
	if t := r.Header.Get("X-Trace-Id"); t != "" && len(t) <= 64 && saneToken(t) {
		return t
	}
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func saneToken(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// middleware gives each request a trace id, recovers panics, and logs and counts it by
// route pattern.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		info := &reqInfo{traceID: traceID(r)}
		r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, info))
		w.Header().Set("X-Trace-Id", info.traceID)
		l := &lingerer{bounds: s.linger, r: r, start: start}
		if r.Body != nil && r.Body != http.NoBody {
			l.body = &trackedBody{rc: r.Body}
			r.Body = l.body
		}
		sw := &statusWriter{ResponseWriter: w, linger: l}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				info.err = fmt.Errorf("panic: %v", p)
				if sw.status == 0 {
					writeError(sw, r, errorf(http.StatusInternalServerError, codeInternal, "internal error"))
				}
			}
			if sw.status == 0 {
				sw.status = http.StatusOK
			}
			if sw.encodeErr != nil {
				info.errCode, info.err = codeInternal, fmt.Errorf("encode the answer: %w", sw.encodeErr)
				s.metrics.unrenderable.WithLabelValues(unrenderableAnswer).Inc()
			}
			route := r.Pattern
			if route == "" || route == "/" {
				route = "unmatched"
			}
			code := strconv.Itoa(sw.status)
			elapsed := time.Since(start)
			s.metrics.requests.WithLabelValues(route, code).Inc()
			s.metrics.latency.WithLabelValues(route, code).Observe(elapsed.Seconds())
			s.logRequest(r, route, sw.status, elapsed, info)
		}()
		if !drainExempt(r) {
			if !s.drains.enter() {
				sw.Header().Set("Connection", "close")
				writeError(sw, r, errDraining())
				return
			}
			defer s.drains.leave()
		}
		next.ServeHTTP(sw, r)
	})
}

// requestLevel is the level of a request's log line. Reads that succeed are polling (the
// dashboard refreshes every view every two seconds, clients poll submissions, probes
// scrape health and metrics): debug. What changes something, and every refusal, is
// worth a line at info; a failure of the server's own (5xx) is an error.
func requestLevel(method string, status int) slog.Level {
	switch {
	case status >= 500:
		return slog.LevelError
	case status >= 400:
		return slog.LevelInfo
	case method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions:
		return slog.LevelDebug
	}
	return slog.LevelInfo
}

func (s *Server) logRequest(r *http.Request, route string, status int, elapsed time.Duration, info *reqInfo) {
	level := requestLevel(r.Method, status)
	if !s.log.Enabled(r.Context(), level) {
		return
	}
	attrs := []slog.Attr{slog.String("method", r.Method), slog.String("route", route),
		slog.String("path", r.URL.Path), slog.Int("status", status),
		slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000), slog.String("trace_id", info.traceID)}
	if info.token != nil {
		attrs = append(attrs, slog.String("token", info.token.Name))
	}
	if info.submissionID != "" {
		attrs = append(attrs, slog.String("submission_id", info.submissionID))
	}
	if info.errCode != "" {
		attrs = append(attrs, slog.String("error_code", info.errCode))
	}
	if info.err != nil {
		attrs = append(attrs, slog.String("err", info.err.Error()))
	}
	if info.discarded > 0 || info.lingerCut != nil {
		attrs = append(attrs, slog.Int64("body_discarded", info.discarded))
	}
	if info.lingerCut != nil {
		attrs = append(attrs, slog.String("body_cut", info.lingerCut.Error()))
	}
	s.log.LogAttrs(context.WithoutCancel(r.Context()), level, "request", attrs...)
}
