package main

import (
	"bytes"
	"context"
	"testing"

	"oj/core/judge/problem/problemtest"
	"oj/core/wire"
)

// problem ls lists every problem with its submission count, archived ones flagged;
// problem rm archives one with submissions (after a y on a terminal, never without
// --yes off one) and deletes one without; dry runs change nothing.
func TestProblemLsAndRm(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.admin.PutProblem(ctx, "draft", bytes.NewReader(problemtest.Zip(problemtest.APlusB("title: Draft\n")))); err != nil {
		t.Fatal(err)
	}
	e.waitTerminal(e.submit("print(1)"))

	r := e.ojctl("problem", "ls")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "ID", "TITLE", "SUBMISSIONS", "ARCHIVED", "aplusb", "A+B", "draft", "2 problems, 0 archived")
	r = e.ojctl("problem", "ls", "-o", "json")
	wantCode(t, r, 0)
	var list wire.ProblemList
	decode(t, r, &list)
	if len(list.Items) != 2 || list.Items[0].ID != "aplusb" || list.Items[0].Submissions != 1 || list.Items[1].Submissions != 0 {
		t.Fatalf("problem ls -o json = %+v", list)
	}

	before := e.audited()
	r = e.ojctl("problem", "rm", "aplusb")
	wantCode(t, r, 2)
	wantIn(t, "stderr", r.stderr, "--yes", "not a terminal")
	if e.audited() != before {
		t.Fatal("a refused rm reached the server")
	}
	r = e.ojctl("problem", "rm", "aplusb", "--dry-run")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "dry run: would archive aplusb (1 submission kept); nothing changed")
	r = e.ojctl("problem", "rm", "draft", "--dry-run", "-o", "json")
	wantCode(t, r, 0)
	var removed wire.ProblemRemoved
	decode(t, r, &removed)
	if removed != (wire.ProblemRemoved{DryRun: true, ID: "draft", Action: "deleted"}) {
		t.Fatalf("dry rm -o json = %+v", removed)
	}
	r = e.exec(run{args: []string{"problem", "rm", "aplusb"}, tty: true, stdin: "n\n"})
	wantCode(t, r, 2)
	wantIn(t, "stderr", r.stderr, "archive aplusb (1 submission kept)? [y/N]", "not confirmed")
	if _, err := e.admin.Problem(ctx, "aplusb"); err != nil {
		t.Fatalf("a dry run or an unconfirmed rm removed aplusb: %v", err)
	}

	r = e.exec(run{args: []string{"problem", "rm", "aplusb"}, tty: true, stdin: "y\n"})
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "archived aplusb (1 submission kept)")
	r = e.ojctl("problem", "ls", "--archived", "true", "-o", "json")
	wantCode(t, r, 0)
	list = wire.ProblemList{}
	decode(t, r, &list)
	if len(list.Items) != 1 || list.Items[0].ID != "aplusb" || !list.Items[0].Archived || list.Items[0].ArchivedAt == nil {
		t.Fatalf("archived problems = %+v", list)
	}
	r = e.ojctl("problem", "ls")
	wantIn(t, "stdout", r.stdout, "since ", "2 problems, 1 archived")
	r = e.ojctl("problem", "show", "aplusb")
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, "HTTP 404")

	r = e.ojctl("problem", "rm", "draft", "--yes")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "deleted draft")
	r = e.ojctl("problem", "rm", "draft", "--yes")
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, "HTTP 404", "unknown problem")

	wantCode(t, e.ojctl("problem", "ls", "--archived", "maybe"), 2)
	wantCode(t, e.ojctl("problem", "rm"), 2)
	user := e.userToken
	for _, args := range [][]string{{"problem", "ls"}, {"problem", "rm", "aplusb", "--yes"}, {"dlq", "purge", "--all", "--yes"}} {
		r = e.exec(run{args: args, token: &user})
		wantCode(t, r, 1)
		wantIn(t, "stderr", r.stderr, "HTTP 403")
	}
}

// dlq purge removes dead letters (the submissions stay dead), with the dry-run, --yes and
// exit-code rules of the other mutating commands.
func TestDLQPurge(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first, second := e.deadLetter(), e.deadLetter()

	wantCode(t, e.ojctl("dlq", "purge"), 2)
	wantCode(t, e.ojctl("dlq", "purge", "--all", first), 2)
	r := e.ojctl("dlq", "purge", "--all")
	wantCode(t, r, 2)
	wantIn(t, "stderr", r.stderr, "--yes", "not a terminal")

	r = e.ojctl("dlq", "purge", "--all", "--dry-run", "-o", "json")
	wantCode(t, r, 0)
	var res wire.PurgeResult
	decode(t, r, &res)
	if res != (wire.PurgeResult{DryRun: true, Requested: 2, WouldPurge: 2}) {
		t.Fatalf("dry purge -o json = %+v", res)
	}
	r = e.ojctl("dlq", "purge", first, "--dry-run")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "Would purge:", "1")
	if e.dlqTotal() != 2 {
		t.Fatal("a dry run purged")
	}

	r = e.exec(run{args: []string{"dlq", "purge", first}, tty: true, stdin: "y\n"})
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "Purged:", "1")
	wantIn(t, "stderr", r.stderr, "Proceed? [y/N]")
	if e.dlqTotal() != 1 {
		t.Fatalf("dead letters after purging one: %d, want 1", e.dlqTotal())
	}
	if s := e.waitTerminal(first); s.State != "dead" || s.Verdict == nil || *s.Verdict != "SE" {
		t.Fatalf("purged submission = %+v, want dead SE", s)
	}
	tr, err := e.admin.Trace(context.Background(), first)
	if err != nil || tr.DeadLetter != nil || tr.Events[len(tr.Events)-1].Event != "purged" {
		t.Fatalf("trace after the purge = %+v %v", tr, err)
	}

	// The first is no longer a dead letter: purged 1 of 2 is partly done.
	r = e.ojctl("dlq", "purge", first, second, "--yes", "-o", "json")
	wantCode(t, r, 3)
	res = wire.PurgeResult{}
	decode(t, r, &res)
	if res != (wire.PurgeResult{Requested: 2, Purged: 1}) {
		t.Fatalf("purge of a purged and a dead letter = %+v", res)
	}
	wantCode(t, e.ojctl("dlq", "purge", "--all", "--yes"), 0)
	if e.dlqTotal() != 0 {
		t.Fatal("dead letters left")
	}
}
