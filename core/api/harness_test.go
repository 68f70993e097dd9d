package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"oj/core/api"
	"oj/core/api/apitest"
	"oj/core/api/client"
	"oj/core/dispatch"
	"oj/core/job"
	"oj/core/judge/problem/problemtest"
	"oj/core/store"
	"oj/core/stream"
	"oj/core/testenv"
	"oj/core/wire"
	"oj/core/worker"
)

// acceptAll is the scripted judge's default answer: AC with one case.
var acceptAll = testenv.Accept

// env is an API over a real pipeline: PostgreSQL schema, Redis prefix, dispatcher and
// worker in this process, an httptest server over the real handler.
type env struct {
	apienv  *apitest.Env
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
	// allAtOnce relays every committed row at once (no fair release): for tests that
	// set up a stream holding the whole queue.
	allAtOnce bool
}

func newEnv(t testing.TB, o envOpts) *env {
	t.Helper()
	opts := apitest.Options{Limits: o.limits, NoWorker: o.noWorker, Worker: o.workerCfg}
	if o.allAtOnce {
		opts.Dispatcher = func(c *dispatch.Config) { c.FairRelease = false }
	}
	a := apitest.New(t, opts)
	e := &env{t: t, db: a.DB, streams: a.Streams, judge: a.Judge, srv: a.Server, http: a.HTTP, disp: a.Disp,
		log: a.Log, apienv: a}
	e.admin = a.Admin
	e.alice = e.client("alice", "user")
	e.bob = e.client("bob", "user")
	return e
}

func (e *env) client(name, role string) *client.Client { return e.apienv.Client(name, role) }

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

// waitFor polls cond until it holds, failing the test after timeout.
func (e *env) waitFor(timeout time.Duration, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("condition not met in %s", timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
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
