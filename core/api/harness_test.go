package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"oj/core/api"
	"oj/core/api/client"
	"oj/core/api/wire"
	"oj/core/clock"
	"oj/core/dispatch"
	"oj/core/job"
	"oj/core/judge/lang"
	"oj/core/judge/objstore"
	"oj/core/judge/problem"
	"oj/core/judge/problem/problemtest"
	"oj/core/store"
	"oj/core/stream"
	"oj/core/testenv"
	"oj/core/worker"
)

// acceptAll is the scripted judge's default answer: AC with one case.
var acceptAll = testenv.Accept

// env is an API over a real pipeline: PostgreSQL schema, Redis prefix, dispatcher and
// worker in this process, an httptest server over the real handler.
type env struct {
	t       testing.TB
	db      *pgxpool.Pool
	streams *stream.Streams
	judge   *testenv.Judge
	srv     *api.Server
	http    *httptest.Server
	admin   *client.Client
	alice   *client.Client
	bob     *client.Client
	disp    *dispatch.Dispatcher
	log     *slog.Logger
}

type envOpts struct {
	limits    func(*api.Limits)
	noWorker  bool
	workerCfg func(*worker.Config)
}

func quietLog() *slog.Logger {
	if os.Getenv("OJ_TEST_VERBOSE") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func testLimits() api.Limits {
	l := api.DefaultLimits()
	l.UserRate, l.GlobalRate = 0, 0 // tests that need buckets set them
	l.BacklogRefresh = 50 * time.Millisecond
	l.SSEHeartbeat = 200 * time.Millisecond
	l.AuthCacheTTL = 0
	return l
}

func testWorkerConfig() worker.Config {
	cfg := worker.DefaultConfig()
	cfg.Name = testenv.RandomName("w-")
	cfg.Concurrency = map[string]int{"light": 16, "heavy": 16, "rejudge": 4}
	cfg.Lease = 5 * time.Second
	cfg.HeartbeatInterval = time.Second
	cfg.ReadBlock = 100 * time.Millisecond
	cfg.ReclaimInterval = 200 * time.Millisecond
	cfg.ReclaimMinIdle = 2 * time.Second
	cfg.RetryBase = 10 * time.Millisecond
	cfg.RetryMax = 50 * time.Millisecond
	cfg.ShutdownGrace = 2 * time.Second
	return cfg
}

func newEnv(t testing.TB, o envOpts) *env {
	t.Helper()
	e := &env{t: t, judge: testenv.NewJudge(nil), log: quietLog()}
	e.db = testenv.Pool(t, testenv.Schema(t, testenv.PostgresURL(t)))
	e.streams = testenv.Streams(t, testenv.RedisAddr(t))
	// Registered after the pool's cleanup, so it runs first: the daemons (and their
	// LISTEN connections) stop before the pool closes.
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	bg := func(fn func(ctx context.Context) error) {
		wg.Add(1)
		go func() { defer wg.Done(); _ = fn(ctx) }()
	}
	dcfg := dispatch.DefaultConfig()
	dcfg.PollInterval = 50 * time.Millisecond
	dcfg.ReconcileInterval = 200 * time.Millisecond
	dcfg.ReconcileAfter = 2 * time.Second
	dcfg.RetryBase = 10 * time.Millisecond
	dcfg.RetryMax = 200 * time.Millisecond
	e.disp = dispatch.New(dcfg, e.db, e.streams, clock.Real{}, e.log, dispatch.NewMetrics(nil))
	bg(e.disp.Run)
	if !o.noWorker {
		e.startWorker(bg, o.workerCfg)
	}

	objects, err := objstore.NewFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := api.DefaultConfig()
	cfg.Limits = testLimits()
	if o.limits != nil {
		o.limits(&cfg.Limits)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	e.srv = api.New(cfg, api.Deps{DB: e.db, Streams: e.streams, Languages: lang.Default(), Objects: objects,
		PackageLimits: problem.DefaultLimits(), Registerer: reg, Gatherer: reg, Log: e.log})
	e.srv.Start(ctx)
	e.http = httptest.NewServer(e.srv.Handler())
	t.Cleanup(e.http.Close)

	e.admin = e.client("admin", "admin")
	e.alice = e.client("alice", "user")
	e.bob = e.client("bob", "user")
	if _, err := e.admin.PutProblem(context.Background(), "aplusb",
		bytes.NewReader(problemtest.Zip(problemtest.APlusB("title: A+B\n")))); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) startWorker(bg func(func(context.Context) error), tweak func(*worker.Config)) {
	cfg := testWorkerConfig()
	if tweak != nil {
		tweak(&cfg)
	}
	w := worker.New(cfg, e.db, e.streams, e.judge, e.disp, clock.Real{}, e.log, worker.NewMetrics(nil))
	bg(w.Run)
}

func (e *env) client(name, role string) *client.Client {
	e.t.Helper()
	secret, err := store.CreateToken(context.Background(), e.db, name, role)
	if err != nil {
		e.t.Fatal(err)
	}
	return client.New(e.http.URL, secret)
}

// raw sends a request and returns the status, headers and decoded JSON body.
func (e *env) raw(method, path, token string, body []byte, header map[string]string) (int, http.Header, map[string]any) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.http.URL+path, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return resp.StatusCode, resp.Header, m
}

func submitBody(problem, language, source string, waitMS int64) []byte {
	req := wire.SubmitRequest{ProblemID: problem, Language: language, Source: source}
	if waitMS > 0 {
		req.WaitMS = &waitMS
	}
	b, _ := json.Marshal(req)
	return b
}

// waitTerminal polls until the submission is terminal (through the API, as admin).
func (e *env) waitTerminal(id string, timeout time.Duration) *wire.Submission {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s, err := e.admin.Submission(context.Background(), id)
		if err == nil && s.Terminal() {
			return s
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("submission %s not terminal after %s: %+v %v", id, timeout, s, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (e *env) waitState(id string, state job.State, timeout time.Duration) *store.Submission {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s, err := store.GetSubmission(context.Background(), e.db, id)
		if err == nil && s.State == state {
			return s
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("submission %s not %s after %s: %+v %v", id, state, timeout, s, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (e *env) submit(c *client.Client, source string) string {
	e.t.Helper()
	res, err := c.Submit(context.Background(), wire.SubmitRequest{ProblemID: "aplusb", Language: "python3", Source: source}, "")
	if err != nil {
		e.t.Fatal(err)
	}
	return res.ID()
}

func tokenOf(c *client.Client) string { return c.Token }

func problemZip(yaml string) string { return string(problemtest.Zip(problemtest.APlusB(yaml))) }

func zipOf(files map[string]string) string { return string(problemtest.Zip(files)) }
