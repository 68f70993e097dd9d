package main

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"oj/core/wire"
)

// Every read command's -o json parses back into its wire type (no unknown field), and its
// table form exits 0 and shows the same facts.
func TestReadCommandsPrintWireJSONAndTables(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	done := e.submit("print(3)")
	e.waitTerminal(done)
	dead := e.deadLetter()
	// A dry run, so the audit log has a row.
	wantCode(t, e.ojctl("trim", "--safe", "--dry-run"), 0)

	check := func(args []string, into any, table ...string) {
		t.Helper()
		r := e.ojctl(append(args, "-o", "json")...)
		wantCode(t, r, 0)
		decode(t, r, into)
		r = e.ojctl(args...)
		wantCode(t, r, 0)
		wantIn(t, strings.Join(args, " ")+" table", r.stdout, table...)
		if strings.Contains(r.stdout, "\x1b[") {
			t.Fatalf("colour escapes when stdout is not a terminal:\n%s", r)
		}
	}

	var ov wire.Overview
	check([]string{"overview"}, &ov, "LANE", "Dead letters", "finished")
	if ov.DeadLetters != 1 || len(ov.Lanes) == 0 || ov.RedisVersion == "" {
		t.Fatalf("overview = %+v", ov)
	}
	var pel wire.PEL
	check([]string{"pel", "--lane", "light"}, &pel)
	if pel.Entries == nil {
		t.Fatalf("pel entries must be [] rather than null: %+v", pel)
	}
	var ob wire.Outbox
	check([]string{"outbox"}, &ob, "Backlog")
	var dlq wire.DLQ
	check([]string{"dlq", "ls"}, &dlq, dead, errJudge.Error())
	if dlq.Total != 1 || len(dlq.Items) != 1 || dlq.Items[0].SubmissionID != dead {
		t.Fatalf("dlq = %+v", dlq)
	}
	var ws wire.Workers
	check([]string{"workers"}, &ws, "Consumers", "Leases")
	var audit wire.Audit
	check([]string{"audit"}, &audit, "trim", "admin")
	if len(audit.Entries) == 0 || audit.Entries[0].Action != "trim" || !audit.Entries[0].DryRun {
		t.Fatalf("audit = %+v", audit)
	}
	var tr wire.Trace
	check([]string{"trace", dead}, &tr, "Attempts", "Timeline", "Dead letter", "ojctl dlq replay "+dead, errJudge.Error())
	if tr.Submission.ID != dead || len(tr.Attempts) == 0 || tr.DeadLetter == nil || tr.Submission.Owner != "admin" {
		t.Fatalf("trace = %+v", tr)
	}
	// The owner by its token's name, not only its id.
	wantIn(t, "trace owner", e.ojctl("trace", dead).stdout, fmt.Sprintf("admin (token %d)", *tr.Submission.OwnerID))
	var langs wire.Languages
	check([]string{"languages"}, &langs, "python3", "cpp17")
	if len(langs.Languages) == 0 {
		t.Fatalf("languages = %+v", langs)
	}
	var sub wire.Submission
	check([]string{"status", done}, &sub, done, "AC", "Cases")
	want, err := e.admin.Submission(context.Background(), done)
	if err != nil || !reflect.DeepEqual(&sub, want) {
		t.Fatalf("status -o json = %+v, the API says %+v (%v)", sub, want, err)
	}
	var prob wire.Problem
	check([]string{"problem", "show", "aplusb"}, &prob, "A+B")
	if prob.ID != "aplusb" || prob.CaseCount != 3 {
		t.Fatalf("problem = %+v", prob)
	}
	var ctxs struct {
		CurrentContext string `json:"current_context"`
		Contexts       []struct {
			Name, Server string
			Current      bool
		} `json:"contexts"`
	}
	check([]string{"config", "get-contexts"}, &ctxs)
}

// A table on a terminal is coloured, unless NO_COLOR or --no-color says no.
func TestNoColourWhenAskedOrNotATerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, r := range []run{
		{args: []string{"languages"}, env: map[string]string{"NO_COLOR": "1"}, tty: true},
		{args: []string{"languages", "--no-color"}, tty: true},
		{args: []string{"languages"}},
	} {
		res := e.exec(r)
		wantCode(t, res, 0)
		if strings.Contains(res.stdout, "\x1b[") {
			t.Fatalf("%v: colour escapes in\n%s", r, res)
		}
	}
	p := (&app{stdoutTTY: true, getenv: func(string) string { return "" }})
	if !p.color() {
		t.Fatal("a terminal without NO_COLOR should get colour")
	}
}
