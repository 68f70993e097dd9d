package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"oj/core/wire"
)

// Without a terminal and without --yes every mutating command refuses (exit 2) before it
// calls the server: nothing changes, not even an audited dry run.
func TestMutatingCommandsRefuseWithoutYesWhenNotATerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dead := e.deadLetter()
	before := e.audited()
	for _, args := range [][]string{
		{"dlq", "replay", "--all"},
		{"dlq", "replay", dead},
		{"reclaim", "--min-idle", "0s"},
		{"trim", "--safe"},
		{"trim", "--maxlen", "0"},
		{"rejudge", "--submission", dead},
		{"rejudge", "--problem", "aplusb"},
		{"cancel", dead},
	} {
		r := e.ojctl(args...)
		wantCode(t, r, 2)
		wantIn(t, "stderr", r.stderr, "--yes", "not a terminal")
	}
	if got := e.audited(); got != before {
		t.Fatalf("refused commands reached the server: audit rows %d → %d", before, got)
	}
	if e.dlqTotal() != 1 {
		t.Fatal("the dead letter changed")
	}
}

// --dry-run prints the server's counts and changes nothing.
func TestDryRunShowsCountsAndChangesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	done := e.submit("print(1)")
	e.waitTerminal(done)
	dead := e.deadLetter()

	r := e.ojctl("dlq", "replay", "--all", "--dry-run", "-o", "json")
	wantCode(t, r, 0)
	var rep wire.ReplayResult
	decode(t, r, &rep)
	if !rep.DryRun || rep.Replayed != 0 || rep.WouldReplay != 1 || rep.Requested != 1 {
		t.Fatalf("dry replay = %+v", rep)
	}
	r = e.ojctl("dlq", "replay", dead, "--dry-run")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "Would replay:", "would replay dead letters: 1 dead letters (dry run); nothing changed")
	if strings.Contains(r.stdout, "Replayed:") {
		t.Fatalf("a dry run reports a done-count:\n%s", r)
	}
	if e.dlqTotal() != 1 {
		t.Fatal("a dry run replayed the dead letter")
	}

	ov, err := e.admin.Overview(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r = e.ojctl("trim", "--maxlen", "0", "--dry-run", "-o", "json")
	wantCode(t, r, 0)
	var tr wire.TrimResult
	decode(t, r, &tr)
	if !tr.DryRun || tr.LengthBefore == 0 || tr.LengthAfter != 0 {
		t.Fatalf("dry trim = %+v", tr)
	}
	after, err := e.admin.Overview(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if lengths(after) != lengths(ov) {
		t.Fatalf("a dry-run trim changed the streams: %d → %d", lengths(ov), lengths(after))
	}

	r = e.ojctl("rejudge", "--submission", done, "--dry-run", "-o", "json")
	wantCode(t, r, 0)
	var rj wire.RejudgeResult
	decode(t, r, &rj)
	if !rj.DryRun || rj.Rejudged != 0 || rj.WouldRejudge != 1 {
		t.Fatalf("dry rejudge = %+v", rj)
	}
	r = e.ojctl("reclaim", "--dry-run", "-o", "json")
	wantCode(t, r, 0)
	var rc wire.ReclaimResult
	decode(t, r, &rc)
	if !rc.DryRun || rc.Reclaimed != 0 {
		t.Fatalf("dry reclaim = %+v", rc)
	}
	if s, _ := e.admin.Submission(context.Background(), done); s.Attempt != 1 || s.State != "finished" {
		t.Fatalf("a dry run changed the submission: %+v", s)
	}
}

func lengths(o *wire.Overview) int64 {
	var n int64
	for _, l := range o.Lanes {
		n += l.Length
	}
	return n
}

// On a terminal without --yes the command shows the dry-run count and asks; "n" changes
// nothing (exit 2), "y" does it.
func TestTerminalAsksWithTheDryRunCount(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.deadLetter()

	r := e.exec(run{args: []string{"dlq", "replay", "--all"}, tty: true, stdin: "n\n"})
	wantCode(t, r, 2)
	wantIn(t, "stderr", r.stderr, "replay dead letters: 1 dead letters. Proceed? [y/N]", "nothing changed")
	if e.dlqTotal() != 1 {
		t.Fatal("answering no replayed the dead letter")
	}
	r = e.exec(run{args: []string{"dlq", "replay", "--all"}, tty: true, stdin: "y\n"})
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "Replayed")
	if e.dlqTotal() != 0 {
		t.Fatal("answering yes did not replay the dead letter")
	}
	// Nothing left: no question, exit 0.
	r = e.exec(run{args: []string{"dlq", "replay", "--all"}, tty: true})
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "nothing to do")
}

// Asked for two, one replayed: partly done, exit 3. None replayed: exit 1.
func TestPartialReplayExitsThree(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dead := e.deadLetter()
	done := e.submit("print(1)")
	e.waitTerminal(done)

	r := e.ojctl("dlq", "replay", dead, done, "--yes", "-o", "json")
	wantCode(t, r, 3)
	var rep wire.ReplayResult
	decode(t, r, &rep)
	if rep.Requested != 2 || rep.Replayed != 1 || rep.WouldReplay != 0 || rep.DryRun {
		t.Fatalf("replay = %+v", rep)
	}
	wantIn(t, "stderr", r.stderr, "partly done", "1 of 2")
	r = e.ojctl("dlq", "replay", done, "--yes")
	wantCode(t, r, 1)
}

// --yes does it: cancel fences a running submission, rejudge judges a finished one again,
// safe trim drops acknowledged entries, reclaim runs; a refused cancel is exit 1.
func TestYesChangesThingsOnTheServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	done := e.submit("print(1)")
	first := e.waitTerminal(done)

	r := e.ojctl("rejudge", "--submission", done, "--yes", "-o", "json")
	wantCode(t, r, 0)
	var rj wire.RejudgeResult
	decode(t, r, &rj)
	if rj.Rejudged != 1 || rj.WouldRejudge != 0 || rj.DryRun {
		t.Fatalf("rejudge = %+v", rj)
	}
	deadline := 0
	for s, _ := e.admin.Submission(ctx, done); !(s.Terminal() && s.Attempt > first.Attempt); s, _ = e.admin.Submission(ctx, done) {
		if deadline++; deadline > 1000 {
			t.Fatalf("rejudged submission never finished again: %+v", s)
		}
		sleepShort()
	}

	e.judge.Set(acceptAll, 2*time.Second)
	slow := e.submit("print(2)")
	e.waitState(slow, "running")
	r = e.ojctl("cancel", slow, "--yes")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "Canceled")
	if s := e.waitTerminal(slow); s.State != "canceled" {
		t.Fatalf("after cancel: %+v", s)
	}
	r = e.ojctl("cancel", slow, "--yes")
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, "HTTP 409")

	r = e.ojctl("trim", "--safe", "--yes", "-o", "json")
	wantCode(t, r, 0)
	var tr wire.TrimResult
	decode(t, r, &tr)
	if tr.DryRun || tr.Strategy != "safe" {
		t.Fatalf("trim = %+v", tr)
	}
	r = e.ojctl("reclaim", "--yes", "-o", "json")
	wantCode(t, r, 0)
	var rc wire.ReclaimResult
	decode(t, r, &rc)
}
