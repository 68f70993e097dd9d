// Package apitest runs the real API handler over a real pipeline for tests: a fresh
// PostgreSQL schema and Redis key prefix (core/testenv), the relay and reconciler, a
// worker with a scripted judge, and an httptest server. The API's own tests, ojctl's
// and the dashboard's use it. It is imported by tests only.
package apitest

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"oj/core/api"
	"oj/core/api/client"
	"oj/core/clock"
	"oj/core/dispatch"
	"oj/core/judge/lang"
	"oj/core/judge/objstore"
	"oj/core/judge/problem"
	"oj/core/judge/problem/problemtest"
	"oj/core/store"
	"oj/core/stream"
	"oj/core/testenv"
	"oj/core/worker"
)

// Options adjust the environment.
type Options struct {
	Limits func(*api.Limits)    // on top of Limits()
	Worker func(*worker.Config) // on top of WorkerConfig()
	// Dispatcher adjusts the dispatcher's config (fair release, for one).
	Dispatcher func(*dispatch.Config)
	NoWorker   bool // start no worker (Env.StartWorker can, later)
	// PostgresURL is the PostgreSQL the schema is made on (empty: the shared one); a test
	// that stops or ages its own stack (testenv.NewStack) passes its URL.
	PostgresURL string
}

// Env is one API server over a real pipeline.
type Env struct {
	T       testing.TB
	DB      *pgxpool.Pool
	Streams *stream.Streams
	Judge   *testenv.Judge // the worker's judge: immediate AC unless set otherwise
	Disp    *dispatch.Dispatcher
	Server  *api.Server
	HTTP    *httptest.Server
	Log     *slog.Logger
	// Objects is the server's object store (a directory of the test's), where tests put
	// run artefacts as a worker would.
	Objects objstore.Store
	// AdminToken is the token called "admin" (role admin), which uploaded "aplusb";
	// Admin is a client using it.
	AdminToken string
	Admin      *client.Client

	ctx context.Context
	wg  *sync.WaitGroup
}

// Log is quiet unless OJ_TEST_VERBOSE is set.
func quietLog() *slog.Logger {
	if os.Getenv("OJ_TEST_VERBOSE") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// Limits are the API limits of tests: no token buckets (tests that need them set them),
// quick backlog refresh and SSE heartbeats, no token cache.
func Limits() api.Limits {
	l := api.DefaultLimits()
	l.UserRate, l.GlobalRate = 0, 0
	l.BacklogRefresh = 50 * time.Millisecond
	l.SSEHeartbeat = 200 * time.Millisecond
	l.AuthCacheTTL = 0
	return l
}

// WorkerConfig is a worker with short leases and quick loops.
func WorkerConfig() worker.Config {
	cfg := worker.DefaultConfig()
	cfg.Name = testenv.RandomName("w-")
	cfg.Concurrency = map[string]int{"light": 16, "heavy": 16, "rejudge": 4, "run": 4}
	cfg.Lease = 5 * time.Second
	cfg.HeartbeatInterval = time.Second
	cfg.ReadBlock = 100 * time.Millisecond
	cfg.ReclaimInterval = 200 * time.Millisecond
	cfg.ReclaimMinIdle = 2 * time.Second
	cfg.RetryBase = 10 * time.Millisecond
	cfg.RetryMax = 50 * time.Millisecond
	cfg.ShutdownGrace = 2 * time.Second
	// Scripted judges fail on purpose, many times in a row; the tests of the quarantine
	// turn it on themselves.
	cfg.QuarantineAfter = 0
	cfg.StatePoll = 100 * time.Millisecond
	return cfg
}

// New starts the environment; everything stops when the test ends. An admin token exists
// and problem "aplusb" (three A+B cases, case 1 its sample) is uploaded with it.
func New(t testing.TB, o Options) *Env {
	t.Helper()
	e := &Env{T: t, Judge: testenv.NewJudge(nil), Log: quietLog(), wg: &sync.WaitGroup{}}
	pgURL := o.PostgresURL
	if pgURL == "" {
		pgURL = testenv.PostgresURL(t)
	}
	e.DB = testenv.Pool(t, testenv.Schema(t, pgURL))
	e.Streams = testenv.Streams(t, testenv.RedisAddr(t))
	// Registered after the pool's cleanup, so it runs first: the daemons (and their
	// LISTEN connections) stop before the pool closes.
	ctx, cancel := context.WithCancel(context.Background())
	e.ctx = ctx
	t.Cleanup(func() { cancel(); e.wg.Wait() })

	dcfg := dispatch.DefaultConfig()
	dcfg.PollInterval = 50 * time.Millisecond
	dcfg.ReconcileInterval = 200 * time.Millisecond
	dcfg.ReconcileAfter = 2 * time.Second
	dcfg.RetryBase = 10 * time.Millisecond
	dcfg.RetryMax = 200 * time.Millisecond
	dcfg.Webhooks.AllowPrivate = true // the tests' receivers are on 127.0.0.1
	if o.Dispatcher != nil {
		o.Dispatcher(&dcfg)
	}
	e.Disp = dispatch.New(dcfg, e.DB, e.Streams, clock.Real{}, e.Log, dispatch.NewMetrics(nil))
	e.Go(e.Disp.Run)
	if !o.NoWorker {
		e.StartWorker(o.Worker)
	}

	objects, err := objstore.NewFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := api.DefaultConfig()
	cfg.Webhooks = dcfg.Webhooks // one "webhooks" section, as ojd reads it
	cfg.Limits = Limits()
	if o.Limits != nil {
		o.Limits(&cfg.Limits)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	e.Objects = objects
	e.Server = api.New(cfg, api.Deps{DB: e.DB, Streams: e.Streams, Languages: lang.Default(), Objects: objects,
		PackageLimits: problem.DefaultLimits(), Registerer: reg, Gatherer: reg, Log: e.Log})
	e.Server.Start(ctx)
	e.HTTP = httptest.NewServer(e.Server.Handler())
	t.Cleanup(e.HTTP.Close)
	e.AdminToken = e.Token("admin", "admin")
	e.Admin = client.New(e.HTTP.URL, e.AdminToken)
	if _, err := e.Admin.PutProblem(context.Background(), "aplusb",
		bytes.NewReader(problemtest.Zip(problemtest.APlusB("title: A+B\nsamples: [1]\n")))); err != nil {
		t.Fatal(err)
	}
	return e
}

// Go runs fn in the background until the test ends.
func (e *Env) Go(fn func(ctx context.Context) error) {
	e.wg.Add(1)
	go func() { defer e.wg.Done(); _ = fn(e.ctx) }()
}

// NewWorker builds a worker on the environment (WorkerConfig with tweak) without
// starting it.
func (e *Env) NewWorker(tweak func(*worker.Config)) *worker.Worker {
	cfg := WorkerConfig()
	if tweak != nil {
		tweak(&cfg)
	}
	return worker.New(cfg, e.DB, e.Streams, e.Judge, e.Disp, clock.Real{}, e.Log, worker.NewMetrics(nil))
}

// StartWorker starts a worker until the test ends.
func (e *Env) StartWorker(tweak func(*worker.Config)) { e.Go(e.NewWorker(tweak).Run) }

// Token creates a token and returns its secret.
func (e *Env) Token(name, role string) string {
	e.T.Helper()
	secret, err := store.CreateToken(context.Background(), e.DB, name, role)
	if err != nil {
		e.T.Fatal(err)
	}
	return secret
}

// Client creates a token and returns a client using it.
func (e *Env) Client(name, role string) *client.Client {
	return client.New(e.HTTP.URL, e.Token(name, role))
}
