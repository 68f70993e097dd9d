package api_test

import (
	"context"
	"testing"
	"time"

	"oj/core/wire"
	"oj/core/worker"
)

// A submission in a language no live worker runs: GET, the trace and the overview say
// why it waits; a worker that runs it, started later, judges it.
func TestWaitingForAWorkerIsVisible(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{workerCfg: func(c *worker.Config) { c.Languages = []string{"python3", "cpp17"} }})
	ctx := context.Background()
	res, err := e.alice.Submit(ctx, wire.SubmitRequest{ProblemID: "aplusb", Language: "java17", Source: "class Main {}"}, "")
	if err != nil {
		t.Fatal(err)
	}
	id := res.ID()
	const want = "queued: no live worker runs java17"
	deadline := time.Now().Add(15 * time.Second)
	for {
		ov, err := e.admin.Overview(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ov.NoWorker) == 1 && ov.NoWorker[0].Language == "java17" && ov.NoWorker[0].Waiting == 1 && ov.NoWorker[0].Reason == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("overview waiting_for_worker = %+v", ov.NoWorker)
		}
		time.Sleep(50 * time.Millisecond)
	}
	s, err := e.alice.Submission(ctx, id)
	if err != nil || s.State != "queued" || s.Waiting != want || s.Attempt != 0 {
		t.Fatalf("GET as the owner = %+v %v", s, err)
	}
	tr, err := e.admin.Trace(ctx, id)
	if err != nil || tr.Submission.Waiting != want {
		t.Fatalf("trace = %+v %v", tr, err)
	}
	// A python3 submission goes through meanwhile, and says nothing of waiting.
	py := e.submit(e.alice, "print(1)")
	if s := e.waitTerminal(py, 20*time.Second); s.State != "finished" {
		t.Fatalf("python3 submission: %+v", s)
	}
	e.apienv.StartWorker(func(c *worker.Config) { c.Languages = []string{"java17"} })
	if s := e.waitTerminal(id, 20*time.Second); s.State != "finished" || s.Attempt != 1 {
		t.Fatalf("java17 submission once a worker runs it: %+v", s)
	}
	s, err = e.alice.Submission(ctx, id)
	if err != nil || s.Waiting != "" {
		t.Fatalf("a finished submission still says it waits: %+v %v", s, err)
	}
}

// The worker routes are an admin's: a user token is refused (403) and changes nothing;
// an admin's dry run changes nothing and is audited.
func TestWorkerRoutesAreAdminOnlyAndDryRunIsAudited(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{workerCfg: func(c *worker.Config) { c.Name = "routes-worker" }})
	ctx := context.Background()
	e.waitTerminal(e.submit(e.alice, "print(1)"), 20*time.Second) // announced by then
	state := func() string {
		t.Helper()
		ws, err := e.admin.Workers(ctx)
		if err != nil || len(ws.Workers) != 1 {
			t.Fatalf("workers = %+v %v", ws, err)
		}
		return ws.Workers[0].State
	}
	audits := func() int {
		t.Helper()
		var n int
		if err := e.db.QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE action LIKE 'worker_%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, action := range []string{"drain", "disable", "enable"} {
		status, _, _ := e.raw("POST", "/admin/v1/workers/routes-worker/"+action, tokenOf(e.alice), nil, nil)
		if status != 403 {
			t.Fatalf("%s as a user: %d, want 403", action, status)
		}
	}
	if state() != "active" || audits() != 0 {
		t.Fatalf("a refused request changed something: state %s, %d audit rows", state(), audits())
	}
	r, err := e.admin.SetWorkerState(ctx, "routes-worker", "disable", "testing", true)
	if err != nil || !r.DryRun || r.WouldChange != 1 || r.Changed != 0 || r.From != "active" || r.To != "disabled" {
		t.Fatalf("dry disable = %+v %v", r, err)
	}
	if state() != "active" {
		t.Fatal("a dry run disabled the worker")
	}
	var dry bool
	var params, counts map[string]any
	err = e.db.QueryRow(ctx, `SELECT dry_run, params, counts FROM audit_log WHERE action = 'worker_disable'`).Scan(&dry, &params, &counts)
	if err != nil || !dry || params["name"] != "routes-worker" || params["reason"] != "testing" || counts["would_change"] != float64(1) {
		t.Fatalf("audit row of the dry run: dry %v params %v counts %v %v", dry, params, counts, err)
	}
	// A submission is still judged: the dry run left the worker active.
	if s := e.waitTerminal(e.submit(e.alice, "print(2)"), 20*time.Second); s.State != "finished" {
		t.Fatalf("after the dry run: %+v", s)
	}
}
