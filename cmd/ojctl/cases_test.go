package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"oj/core/api/client"
	"oj/core/job"
	"oj/core/judge/objstore"
	"oj/core/wire"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var (
	uuidRE     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	stampRE    = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`)
	progressRE = regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d  .*\n`)
)

// normalize takes out of ojctl's output what changes from run to run: ids, times, and
// the progress lines (how many state changes the stream shows depends on timing).
func normalize(s string) string {
	s = progressRE.ReplaceAllString(s, "")
	s = uuidRE.ReplaceAllString(s, "<id>")
	return stampRE.ReplaceAllString(s, "<time>")
}

// golden compares got with testdata/name.golden (-update rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/ojctl -run %s -update creates it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("output differs from %s (go test ./cmd/ojctl -run %s -update rewrites it)\n--- got:\n%s\n--- want:\n%s", path, t.Name(), got, want)
	}
}

// longReason is a reason too long for one line, with a word longer than a line and
// terminal control sequences, as a hostile package or toolchain could produce.
const longReason = "fetch problem package 3f9a5c0e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0.zip" +
	" from the object store: object not found; the package was removed after the submission pinned it," +
	" \x1b[2J\x1b]0;owned\x07push the problem again or rejudge on the latest version"

// A dead submission shows its reason whole, wrapped under its label, and the terminal
// never sees the control characters in it.
func TestPrintSubmissionWrapsTheErrorWhole(t *testing.T) {
	t.Parallel()
	verdict := "SE"
	s := &wire.Submission{ID: "0195a1b2-dead-7000-8000-000000000001", ProblemID: "aplusb", ProblemVersion: 2,
		Language: "cpp17", State: "dead", Verdict: &verdict, Attempt: 3, Error: longReason}
	var out bytes.Buffer
	a := &app{stdout: &out, getenv: func(string) string { return "" }}
	p := a.printer(&out)
	printSubmission(p, s)
	if p.err != nil {
		t.Fatal(p.err)
	}
	if strings.Contains(out.String(), "\x1b") || strings.Contains(out.String(), "\x07") {
		t.Fatalf("control characters reach the terminal: %q", out.String())
	}
	golden(t, "dead_submission", out.String())
}

// submit --wait of a submission that ends dead prints the reason the API gives (exit 1,
// as before).
func TestSubmitWaitShowsWhyTheSubmissionIsDead(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.judge.Set(func(job.Task, int) (job.Outcome, error) { return job.Outcome{}, errors.New(longReason) }, 0)
	r := e.ojctl("submit", writeFile(t, "sol.py", "print(1)\n"), "--problem", "aplusb", "--wait")
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, "ended dead")
	id := uuidRE.FindString(r.stdout)
	s, err := e.admin.Submission(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if s.Error == "" {
		t.Fatalf("the API gives no error for dead submission %s", id)
	}
	golden(t, "submit_wait_dead", normalize(r.String()))
}

// status --cases shows the table, then what the solution wrote in each failed case the
// viewer may read (the owner: sample cases only); an admin also gets the hidden cases and
// the checker's message, and -o json gives every case's detail.
func TestStatusCasesShowsTheOutputOfFailedCases(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.judge.Set(func(tk job.Task, _ int) (job.Outcome, error) {
		arts, _ := json.Marshal(map[string]any{"cases": []map[string]any{
			{"index": 1, "verdict": "AC", "stdout": "3\n"},
			{"index": 2, "verdict": "WA", "stdout": "12\n\x1b[31mred\x1b[0m\n", "stderr": "debug: a=5 b=7\n"},
			{"index": 3, "verdict": "RE", "stderr": "Traceback (most recent call last):\n  File \"sol.py\", line 1\nZeroDivisionError: division by zero\n"},
		}})
		key := objstore.RunKey(tk.SubmissionID, tk.Attempt, "cases.json")
		if err := e.objects.Put(context.Background(), key, bytes.NewReader(arts), int64(len(arts))); err != nil {
			return job.Outcome{}, err
		}
		return job.Outcome{Verdict: job.VerdictWA, Score: 33, TimeMS: 41, MemoryKB: 9800, Cases: []job.CaseResult{
			{Index: 1, Subtask: 1, Verdict: job.VerdictAC, TimeMS: 12, MemoryKB: 9000, Score: 33},
			{Index: 2, Subtask: 1, Verdict: job.VerdictWA, TimeMS: 41, MemoryKB: 9800,
				Message: "line 1: expected a number, found something else", CheckerMessage: `expected "12", found "12\nred"`},
			{Index: 3, Subtask: 2, Verdict: job.VerdictRE, TimeMS: 20, MemoryKB: 9100, Message: "exit code 1"},
		}}, nil
	}, 0)
	user := client.New(e.url, e.userToken)
	res, err := user.Submit(context.Background(), wire.SubmitRequest{ProblemID: "aplusb", Language: "python3", Source: "print(12)"}, "")
	if err != nil {
		t.Fatal(err)
	}
	id := res.ID()
	e.waitTerminal(id)

	// The owner: case 1 is aplusb's sample, cases 2 and 3 are hidden, so their output
	// and messages are withheld and the note says why.
	r := e.exec(run{args: []string{"status", id, "--cases"}, token: &e.userToken})
	wantCode(t, r, 0)
	if strings.Contains(r.stdout, "debug: a=5") || strings.Contains(r.stdout, `found "12`) || strings.Contains(r.stdout, "exit code 1") {
		t.Fatalf("the owner's output has a hidden case's output or the checker's message:\n%s", r)
	}
	wantIn(t, "owner's stdout", r.stdout, "hidden test case", "wrong answer", "runtime error")
	golden(t, "status_cases", normalize(r.String()))

	// An admin sees everything, made safe for a terminal.
	r = e.ojctl("status", id, "--cases")
	wantCode(t, r, 0)
	if strings.Contains(r.stdout, "\x1b") {
		t.Fatalf("the admin's output has control characters:\n%s", r)
	}
	wantIn(t, "admin's stdout", r.stdout, "Checker:", `expected "12", found "12`, "debug: a=5 b=7")
	golden(t, "status_cases_admin", normalize(r.String()))

	r = e.exec(run{args: []string{"status", id, "--cases", "-o", "json"}, token: &e.userToken})
	wantCode(t, r, 0)
	var details []wire.CaseDetail
	decode(t, r, &details)
	if len(details) != 3 || details[1].Stdout != "" || details[1].ExcerptsNote == "" || details[2].Verdict != "RE" ||
		details[1].CheckerMessage != "" || details[0].SubmissionID != id || details[0].Stdout != "3\n" || !details[0].Sample {
		t.Fatalf("status --cases -o json = %+v", details)
	}
	r = e.ojctl("status", id, "--cases", "-o", "json")
	wantCode(t, r, 0)
	details = nil
	decode(t, r, &details)
	if len(details) != 3 || details[1].Stdout != "12\n\x1b[31mred\x1b[0m\n" || details[1].CheckerMessage == "" {
		t.Fatalf("admin's status --cases -o json = %+v", details)
	}
}
