package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"oj/core/api/apitest"
	"oj/core/api/client"
	"oj/core/job"
	"oj/core/judge/objstore"
	"oj/core/store"
	"oj/core/testenv"
	"oj/core/wire"
)

// The tests run ojctl in-process against a real ojd api: the real handler over a real
// pipeline (PostgreSQL schema and Redis prefix per test, dispatcher and worker in this
// process) with a scripted judge, so every command goes through HTTP as it does in
// production, and what it changed is checked on the server.

var errJudge = errors.New("sandbox exploded")

// acceptAll and failAll are the scripted judge's answers (testenv.Judge).
var acceptAll = testenv.Accept

func failAll(job.Task, int) (job.Outcome, error) { return job.Outcome{}, errJudge }

// env is one API server over a real pipeline, with an admin and a user token.
type env struct {
	t          *testing.T
	db         *pgxpool.Pool
	judge      *testenv.Judge
	url        string
	admin      *client.Client // for checking on the server what a command did
	adminToken string
	userToken  string
	objects    objstore.Store // the server's object store, for artefacts a worker would write
}

func newEnv(t *testing.T) *env {
	t.Helper()
	a := apitest.New(t, apitest.Options{})
	e := &env{t: t, db: a.DB, judge: a.Judge, url: a.HTTP.URL, admin: a.Admin, adminToken: a.AdminToken,
		objects: a.Objects}
	e.userToken = e.token("alice", "user")
	return e
}

func (e *env) token(name, role string) string {
	e.t.Helper()
	secret, err := store.CreateToken(context.Background(), e.db, name, role)
	if err != nil {
		e.t.Fatal(err)
	}
	return secret
}

// run is one ojctl invocation.
type run struct {
	args   []string
	env    map[string]string // added to OJCTL_SERVER, OJCTL_TOKEN (admin) and HOME
	stdin  string
	tty    bool // stdin, stdout and stderr are terminals
	token  *string
	server string
}

type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return "exit " + itoa(r.code) + "\n--- stdout\n" + r.stdout + "--- stderr\n" + r.stderr
}

// ojctl runs ojctl with args as the admin, stdin not a terminal.
func (e *env) ojctl(args ...string) result { return e.exec(run{args: args}) }

func (e *env) exec(r run) result {
	e.t.Helper()
	vars := map[string]string{"OJCTL_SERVER": e.url, "OJCTL_TOKEN": e.adminToken, "HOME": e.t.TempDir()}
	if r.token != nil {
		vars["OJCTL_TOKEN"] = *r.token
	}
	if r.server != "" {
		vars["OJCTL_SERVER"] = r.server
	}
	for k, v := range r.env {
		vars[k] = v
	}
	return ojctlWith(e.t, vars, r)
}

func ojctlWith(t *testing.T, vars map[string]string, r run) result {
	t.Helper()
	var out, errOut bytes.Buffer
	a := &app{stdin: strings.NewReader(r.stdin), stdout: &out, stderr: &errOut,
		getenv:   func(k string) string { return vars[k] },
		stdinTTY: r.tty, stdoutTTY: r.tty, stderrTTY: r.tty}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code := a.execute(ctx, r.args)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// decode parses stdout into v, refusing fields the wire type does not have.
func decode(t *testing.T, r result, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("stdout is not a %T: %v\n%s", v, err, r)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON value\n%s", r)
	}
}

func (e *env) submit(source string) string {
	e.t.Helper()
	res, err := e.admin.Submit(context.Background(), wire.SubmitRequest{ProblemID: "aplusb", Language: "python3", Source: source}, "")
	if err != nil {
		e.t.Fatal(err)
	}
	return res.ID()
}

// waitTerminal polls the API until the submission is terminal.
func (e *env) waitTerminal(id string) *wire.Submission {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s, err := e.admin.Submission(context.Background(), id)
		if err == nil && s.Terminal() {
			return s
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("submission %s not terminal: %+v %v", id, s, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (e *env) waitState(id, state string) {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s, err := e.admin.Submission(context.Background(), id)
		if err == nil && s.State == state {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("submission %s not %s: %+v %v", id, state, s, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// deadLetter makes a submission that fails until it is dead.
func (e *env) deadLetter() string {
	e.t.Helper()
	e.judge.Set(failAll, 0)
	id := e.submit("print(1)")
	if s := e.waitTerminal(id); s.State != "dead" {
		e.t.Fatalf("submission %s ended %s, want dead", id, s.State)
	}
	e.judge.Set(acceptAll, 0)
	return id
}

func (e *env) dlqTotal() int64 {
	e.t.Helper()
	page, err := e.admin.DLQ(context.Background(), 100, "")
	if err != nil {
		e.t.Fatal(err)
	}
	return page.Total
}

// audited counts the audit rows: every call of a mutating endpoint writes one, dry runs too.
func (e *env) audited() int {
	e.t.Helper()
	entries, err := e.admin.Audit(context.Background(), 1000)
	if err != nil {
		e.t.Fatal(err)
	}
	return len(entries)
}

func wantCode(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("want exit %d\n%s", code, r)
	}
}

func wantIn(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Fatalf("%s lacks %q:\n%s", what, sub, s)
		}
	}
}

func sleepShort() { time.Sleep(20 * time.Millisecond) }
