// Package api is ojd's HTTP face: the public submission API, the admin endpoints that
// ojctl drives, health and metrics. The JSON shapes live in core/wire, shared with the
// Go client in core/api/client.
//
// The API never decides a submission's fate from Redis: states and verdicts are read from
// PostgreSQL (invariant 1), a submit answers 2xx only after the transaction that created
// the submission and its outbox row committed (invariant 2), and every mutating admin
// action goes through PostgreSQL and the outbox, supports dry_run and is audited
// (invariant 8).
package api

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"
	"golang.org/x/net/netutil"

	"oj/core/clock"
	"oj/core/judge/lang"
	"oj/core/judge/objstore"
	"oj/core/judge/problem"
	"oj/core/ops"
	"oj/core/render"
	"oj/core/stream"
)

// Deps are what the server works with.
type Deps struct {
	DB        *pgxpool.Pool
	Streams   *stream.Streams
	Languages *lang.Set
	Objects   objstore.Store
	// PackageLimits bound what a problem upload may contain.
	PackageLimits problem.Limits
	// Builds has a worker compile an uploaded package's checker or interactor; nil
	// refuses such packages with a 503 that says so.
	Builds     ToolBuilds
	Registerer prometheus.Registerer
	Gatherer   prometheus.Gatherer
	Clock      clock.Clock
	Log        *slog.Logger
}

// Server serves the HTTP API.
type Server struct {
	cfg     Config
	lim     Limits
	d       Deps
	log     *slog.Logger
	clock   clock.Clock
	metrics *metrics
	hub     *hub
	buckets *buckets
	// runBuckets are the runs' own (api.limits.run_rate, run_burst).
	runBuckets *buckets
	backlog    *backlog
	auth       *authCache
	views      render.Visibilities
	streams    *streamGate
	// followers bounds the results feed's followers.
	followers *followerGate
	ops       *ops.Ops
	linger    lingerBounds
	drains    drainGate
	once      sync.Once
	// closing is closed when the server shuts down: waits and event streams end early.
	closing   chan struct{}
	closeOnce sync.Once
	// faces are the other APIs mounted on this server (face.go).
	faces []mounted
}

// New returns a server. Start (or Run) starts its background parts: the shared
// LISTEN on oj_events that wakes waiting submits and event streams, and the backlog probe.
func New(cfg Config, d Deps) *Server {
	if d.Clock == nil {
		d.Clock = clock.Real{}
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	d.Registerer, d.Gatherer = registries(d.Registerer, d.Gatherer)
	s := &Server{cfg: cfg, lim: cfg.Limits, d: d, log: d.Log, clock: d.Clock, closing: make(chan struct{})}
	s.metrics = newMetrics(d.Registerer)
	s.streams = newStreamGate(cfg.Limits.MaxStreamsPerToken, cfg.Limits.MaxStreams, d.Registerer)
	s.followers = newFollowerGate(cfg.Limits.MaxFeedFollowers, d.Registerer)
	s.hub = newHub(d.DB, d.Log)
	s.buckets = newBuckets(cfg.Limits)
	s.runBuckets = newRunBuckets(cfg.Limits)
	s.backlog = &backlog{db: d.DB, lim: cfg.Limits, clock: d.Clock, log: d.Log}
	s.auth = newAuthCache(cfg.Limits.AuthCacheTTL)
	s.ops = ops.New(d.DB, d.Streams, d.Clock, d.Log)
	s.linger = lingerBounds{bytes: lingerBytes, idle: lingerIdle, total: cfg.ReadTimeout}
	if s.linger.total <= 0 {
		s.linger.total = DefaultConfig().ReadTimeout
	}
	return s
}

// registries fills in what Deps left out so that what the server registers is what
// /metrics serves: one side given serves as the other when it can, and with neither the
// server has a registry of its own for both.
func registries(reg prometheus.Registerer, g prometheus.Gatherer) (prometheus.Registerer, prometheus.Gatherer) {
	if reg == nil {
		if r, ok := g.(prometheus.Registerer); ok {
			reg = r
		}
	}
	if g == nil {
		if gg, ok := reg.(prometheus.Gatherer); ok {
			g = gg
		}
	}
	if reg == nil || g == nil {
		r := prometheus.NewRegistry()
		if reg == nil {
			reg = r
		}
		if g == nil {
			g = r
		}
	}
	return reg, g
}

// Start runs the background parts until ctx ends. It is idempotent.
func (s *Server) Start(ctx context.Context) {
	s.once.Do(func() {
		go s.hub.run(ctx)
		go s.backlog.run(ctx)
	})
}

// Handler returns the routes wrapped in the request middleware (trace id, log, metrics).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	// Each route declares the query parameters it takes (takes): any other, or one given
	// twice, is a 400 that names it, before the handler runs (checkQuery). A route that
	// takes a body declares its limit (body): a larger one is a 413 that names the limit
	// and its config key (limitBody).
	submitBody := bodyLimit{max: submitBodyLimit(s.lim.MaxSourceBytes), what: "source",
		limit: int64(s.lim.MaxSourceBytes), key: keyMaxSource}
	runBody := bodyLimit{max: runBodyLimit(s.lim.MaxSourceBytes, s.cfg.Runs.MaxStdinBytes), what: "run (source and inputs)",
		limit: runBodyLimit(s.lim.MaxSourceBytes, s.cfg.Runs.MaxStdinBytes), key: keyMaxSource + " and " + keyMaxStdin}
	packageBody := bodyLimit{max: s.lim.MaxProblemBytes, what: "package", limit: s.lim.MaxProblemBytes, key: keyMaxProblem}
	action := takes("dry_run").body(adminBody)
	public := func(pattern string, h http.Handler, in routeInput) { mux.Handle(pattern, strictQuery(in, h)) }
	user := func(pattern string, h handlerFunc, in routeInput) { mux.Handle(pattern, s.authed(anyToken, in, h)) }
	submitter := func(pattern string, h handlerFunc, in routeInput) { mux.Handle(pattern, s.authed(submitters, in, h)) }
	reader := func(pattern string, h handlerFunc, in routeInput) { mux.Handle(pattern, s.authed(readers, in, h)) }
	admin := func(pattern string, h handlerFunc, in routeInput) { mux.Handle(pattern, s.authed(admins, in, h)) }

	public("GET /healthz", http.HandlerFunc(healthz), takes())
	public("GET /readyz", http.HandlerFunc(s.readyz), takes())
	public("GET /metrics", promhttp.HandlerFor(s.d.Gatherer, promhttp.HandlerOpts{}), takes())

	submitter("POST /api/v1/submissions", s.submit, takes().body(submitBody))
	user("GET /api/v1/submissions", s.ownSubmissions, takes("state", "problem", "owner", "purpose", "limit", "cursor", "meta.*"))
	user("GET /api/v1/submissions/{id}", s.getSubmission, takes())
	user("GET /api/v1/submissions/{id}/events", s.events, takes())
	user("GET /api/v1/submissions/{id}/cases/{n}", s.getCase, takes())
	user("GET /api/v1/languages", s.languages, takes())
	submitter("POST /api/v1/runs", s.run, takes().body(runBody))
	user("GET /api/v1/runs/{id}", s.getRun, takes())
	admin("PUT /api/v1/problems/{id}", s.putProblem, takes("format").body(packageBody))
	user("GET /api/v1/problems/{id}", s.getProblem, takes())
	reader("GET /api/v1/problems", s.listProblems, takes("archived"))
	reader("GET /api/v1/events", s.feed, takes("since", "follow", "types", "problem", "purpose", "meta.*"))
	admin("DELETE /api/v1/problems/{id}", s.removeProblem, takes("dry_run"))
	user("GET /api/v1/problems/{id}/samples/{n}/{file}", s.getSample, takes())
	user("GET /api/v1/problems/{id}/statement/{path...}", s.getStatement, takes())

	admin("GET /admin/v1/overview", s.overview, takes())
	admin("GET /admin/v1/pel", s.pel, takes("lane", "min_idle_ms", "limit"))
	admin("POST /admin/v1/reclaim", s.reclaim, action)
	admin("GET /admin/v1/outbox", s.outbox, takes("limit"))
	admin("GET /admin/v1/dlq", s.dlq, takes("limit", "cursor"))
	admin("GET /admin/v1/submissions", s.listSubmissions, takes("state", "problem", "owner", "purpose", "limit", "cursor", "meta.*"))
	admin("POST /admin/v1/dlq/replay", s.replay, action)
	admin("POST /admin/v1/dlq/purge", s.purge, action)
	admin("POST /admin/v1/trim", s.trim, action)
	admin("POST /admin/v1/submissions/{id}/rejudge", s.rejudgeSubmission, action)
	admin("POST /admin/v1/problems/{id}/rejudge", s.rejudgeProblem, action)
	admin("POST /admin/v1/problems/{id}/verify", s.verifyProblem, action)
	admin("GET /admin/v1/problems/{id}/verify", s.getVerification, takes("version"))
	admin("POST /admin/v1/submissions/{id}/cancel", s.cancel, action)
	admin("GET /admin/v1/workers", s.workers, takes())
	admin("POST /admin/v1/workers/{name}/drain", s.workerAction(workerDrain), action)
	admin("POST /admin/v1/workers/{name}/disable", s.workerAction(workerDisable), action)
	admin("POST /admin/v1/workers/{name}/enable", s.workerAction(workerEnable), action)
	admin("GET /admin/v1/audit", s.audit, takes("limit"))
	admin("GET /admin/v1/submissions/{id}/trace", s.trace, takes())
	admin("GET /admin/v1/tokens", s.listTokens, takes())
	admin("POST /admin/v1/tokens", s.createToken, takes("dry_run").body(adminBody))
	admin("DELETE /admin/v1/tokens/{name}", s.revokeToken, takes("dry_run"))
	admin("GET /admin/v1/webhooks", s.listWebhooks, takes())
	admin("POST /admin/v1/webhooks", s.createWebhook, action)
	admin("GET /admin/v1/webhooks/{id}", s.getWebhook, takes())
	admin("DELETE /admin/v1/webhooks/{id}", s.deleteWebhook, takes("dry_run"))
	admin("POST /admin/v1/webhooks/{id}/enable", s.enableWebhook, action)
	admin("POST /admin/v1/webhooks/{id}/disable", s.disableWebhook, action)
	admin("POST /admin/v1/webhooks/{id}/rotate", s.rotateWebhook, action)
	admin("POST /admin/v1/webhooks/{id}/test", s.testWebhook, action)
	admin("GET /admin/v1/webhooks/{id}/deliveries", s.listDeliveries, takes("status", "limit", "cursor"))
	admin("POST /admin/v1/webhooks/{id}/deliveries/{delivery}/redeliver", s.redeliver, action)

	if root := s.mountFaces(mux); root != nil {
		mux.Handle("/", root)
	} else {
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			writeError(w, r, errorf(http.StatusNotFound, codeNotFound, "no route %s %s", r.Method, r.URL.Path))
		})
	}
	return s.middleware(mux)
}

// HealthHandler serves only /healthz, /readyz and /metrics: the dispatcher's and the
// worker's metrics listener. They take no query parameters, as on the API.
func HealthHandler(db *pgxpool.Pool, rdb redis.UniversalClient, gatherer prometheus.Gatherer) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /healthz", strictQuery(takes(), http.HandlerFunc(healthz)))
	mux.Handle("GET /readyz", strictQuery(takes(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { ready(w, r, db, rdb) })))
	mux.Handle("GET /metrics", strictQuery(takes(), promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{})))
	return mux
}

func healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ready(w, r, s.d.DB, s.d.Streams.Client())
}

// ready answers 200 only when PostgreSQL and Redis both answer.
func ready(w http.ResponseWriter, r *http.Request, db *pgxpool.Pool, rdb redis.UniversalClient) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	checks := map[string]string{"postgres": "ok", "redis": "ok"}
	status := http.StatusOK
	if err := db.Ping(ctx); err != nil {
		checks["postgres"], status = err.Error(), http.StatusServiceUnavailable
	}
	if err := rdb.Ping(ctx).Err(); err != nil {
		checks["redis"], status = err.Error(), http.StatusServiceUnavailable
	}
	writeJSON(w, status, checks)
}

// Run binds cfg.Listen and serves until ctx ends (Listen, then Serve).
func (s *Server) Run(ctx context.Context) error {
	ln, err := Listen(s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("api: %w", err)
	}
	return s.Serve(ctx, ln)
}

// Serve serves on ln, already bound, until ctx ends, then drains and shuts down within
// shutdown_timeout (ServeDraining with nothing else to wait for). It logs "api
// listening" with the address actually bound (with port 0 in the config, the port the
// kernel chose). Serve closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	return s.ServeDraining(ctx, ln, nil)
}

// ServeDraining is Serve for a process with other parts to stop: when ctx ends the
// server drains (drain.go) — ln stays open and new requests are answered 503 with
// Retry-After — until until is closed (nil: at once) and the requests in flight ended,
// then it closes within shutdown_timeout.
func (s *Server) ServeDraining(ctx context.Context, ln net.Listener, until <-chan struct{}) error {
	bg, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBG()
	s.Start(bg)
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: s.cfg.ReadTimeout,
		IdleTimeout: idleTimeout}
	if n := connectionCap(); n > 0 {
		// Past it, new connections wait in the kernel's backlog rather than take the
		// descriptors PostgreSQL, Redis and judging need.
		ln = netutil.LimitListener(ln, n)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	s.log.Info("api listening", "addr", ln.Addr().String())
	select {
	case err := <-errc:
		return fmt.Errorf("api: %w", err)
	case <-ctx.Done():
	}
	// Waiting submits and event streams end now, so the drain does not wait out their
	// timeouts; requests in flight (a submit's transaction) finish normally. Kept-alive
	// connections close after their answer, so their clients come back to the process
	// that replaces this one.
	idle := s.drains.drain()
	s.closeOnce.Do(func() { close(s.closing) })
	srv.SetKeepAlivesEnabled(false)
	s.log.Info("api draining: new requests are answered 503 until the process stopped")
	if until != nil {
		select {
		case <-until:
		case err := <-errc:
			return fmt.Errorf("api: %w", err)
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	select {
	case <-idle:
	case <-sctx.Done():
	}
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("api shutdown: %w", err)
	}
	return nil
}

// idleTimeout closes a kept-alive connection that sends nothing for this long.
const idleTimeout = 2 * time.Minute

// connectionCap bounds the API's open connections at three quarters of the process's
// open-file limit (event streams alone are held to half, streamGate): a quarter always
// stays for PostgreSQL, Redis, the object store and, in `ojd all`, judging. 0 when the
// limit cannot be read.
func connectionCap() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == 0 || rl.Cur >= 1<<40 {
		return 0
	}
	return int(rl.Cur * 3 / 4)
}
