package main

import (
	"context"
	"testing"

	"oj/core/wire"
)

// ojctl worker ls, drain, disable and enable against a running worker: a dry run changes
// nothing, a refusal without --yes calls nothing, a drain shows in the list, a repeated
// one is a 409 and an unknown name a 404.
func TestWorkerCommands(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	e.waitTerminal(e.submit("print(1)")) // the worker has announced itself by then
	ws, err := e.admin.Workers(ctx)
	if err != nil || len(ws.Workers) != 1 {
		t.Fatalf("workers = %+v %v", ws, err)
	}
	name := ws.Workers[0].Name
	state := func() string {
		t.Helper()
		r := e.ojctl("worker", "ls", "-o", "json")
		wantCode(t, r, 0)
		var list []wire.WorkerInfo
		decode(t, r, &list)
		if len(list) != 1 || list[0].Name != name || !list[0].Live {
			t.Fatalf("worker ls = %+v", list)
		}
		return list[0].State
	}
	if s := state(); s != "active" {
		t.Fatalf("state = %s", s)
	}
	r := e.ojctl("worker", "ls")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "NAME", "LANGUAGES", name, "active")

	before := e.audited()
	r = e.ojctl("worker", "drain", name)
	wantCode(t, r, 2)
	wantIn(t, "stderr", r.stderr, "--yes", "not a terminal")
	if e.audited() != before {
		t.Fatal("a refused drain reached the server")
	}
	r = e.ojctl("worker", "drain", name, "--dry-run", "-o", "json")
	wantCode(t, r, 0)
	var res wire.WorkerActionResult
	decode(t, r, &res)
	if !res.DryRun || res.WouldChange != 1 || res.Changed != 0 || res.From != "active" || res.To != "draining" {
		t.Fatalf("dry drain = %+v", res)
	}
	if s := state(); s != "active" {
		t.Fatalf("a dry run drained the worker: %s", s)
	}
	r = e.ojctl("worker", "drain", name, "--reason", "kernel update", "--yes")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "Changed", "draining")
	if s := state(); s != "draining" {
		t.Fatalf("after the drain: %s", s)
	}
	r = e.ojctl("worker", "drain", name, "--yes")
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, "HTTP 409", "already draining")
	r = e.ojctl("worker", "enable", name, "--yes", "-o", "json")
	wantCode(t, r, 0)
	decode(t, r, &res)
	if res.Changed != 1 || res.From != "draining" || res.To != "active" {
		t.Fatalf("enable = %+v", res)
	}
	r = e.ojctl("worker", "disable", "no-such-worker", "--yes")
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, "HTTP 404", "ojctl worker ls")
	// The worker judges again.
	if s := e.waitTerminal(e.submit("print(2)")); s.State != "finished" {
		t.Fatalf("after the enable: %+v", s)
	}
}
