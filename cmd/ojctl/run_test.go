package main

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"oj/core/job"
	"oj/core/wire"
)

// run prints what the program wrote on each input as a terminal would (stdout alone on
// stdout), a status line per input and the clamping notes on stderr, and exits 0 only
// when every input ran OK. The scripted judge runs programs as cat.
func TestRunPrintsLikeATerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	src := writeFile(t, "cat.py", "import sys\nsys.stdout.write(sys.stdin.read())\n")
	in1 := writeFile(t, "in1.txt", "first\n")

	r := e.exec(run{args: []string{"run", src, "--stdin", in1, "--stdin", "-", "--time", "1h"}, stdin: "second\n"})
	wantCode(t, r, 0)
	if r.stdout != "first\nsecond\n" {
		t.Fatalf("stdout %q, want the two inputs' output alone\n%s", r.stdout, r)
	}
	wantIn(t, "stderr", r.stderr, "note: time_ms 3600000 is over the maximum (runs.max_time)", "── input 1: OK · exit 0", "── input 2: OK")

	// -o json: the run as GET /api/v1/runs/{id} gives it.
	r = e.ojctl("run", src, "--stdin", in1, "--memory", "64MiB", "-o", "json")
	wantCode(t, r, 0)
	var got wire.Run
	decode(t, r, &got)
	want, err := e.admin.GetRun(context.Background(), got.ID)
	if err != nil || !reflect.DeepEqual(&got, want) || got.Limits.MemoryMB != 64 || got.Results[0].Stdout != "first\n" {
		t.Fatalf("run -o json = %+v; the API says %+v (%v)", got, want, err)
	}

	// An input that did not run OK is a failure (exit 1), its output still printed.
	e.judge.Set(func(tk job.Task, call int) (job.Outcome, error) {
		out, err := acceptAll(tk, call)
		out.Runs[len(out.Runs)-1].Status, out.Runs[len(out.Runs)-1].ExitCode = job.RunRE, 3
		return out, err
	}, 0)
	r = e.ojctl("run", src, "--stdin", in1)
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, "── RE · exit 3", "1 of 1 inputs did not run OK")
	if r.stdout != "first\n" {
		t.Fatalf("stdout %q", r.stdout)
	}

	// Usage errors: a size without meaning, an unguessable language.
	wantCode(t, e.ojctl("run", src, "--memory", "lots"), 2)
	r = e.ojctl("run", writeFile(t, "prog.txt", "x"))
	wantCode(t, r, 2)
	if !strings.Contains(r.stderr, "--lang") {
		t.Fatalf("no hint of --lang:\n%s", r)
	}
}
