package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"oj/core/api/client"
	"oj/core/job"
	"oj/core/judge/objstore"
	"oj/core/wire"
)

// putArtefact stores an attempt's artefact as the worker does, under its run key.
func (e *env) putArtefact(id string, attempt int, name string, b []byte) {
	e.t.Helper()
	key := objstore.RunKey(id, attempt, name)
	if err := e.apienv.Objects.Put(context.Background(), key, bytes.NewReader(b), int64(len(b))); err != nil {
		e.t.Fatal(err)
	}
}

// casesJSON is a cases.json as the worker writes it (core/judge's artefacts).
func casesJSON(cases ...map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"cases": cases})
	return b
}

// waWithOutput is waWithCheckerMessage whose judge also stores the attempt's excerpts, as
// a worker with judge.store_artefacts does.
func (e *env) waWithOutput(t job.Task, call int) (job.Outcome, error) {
	e.putArtefact(t.SubmissionID, t.Attempt, "cases.json", casesJSON(
		map[string]any{"index": 1, "verdict": "AC", "stdout": "3\n", "stderr": ""},
		map[string]any{"index": 2, "verdict": "WA", "stdout": "12\n", "stderr": "debug: a=5 b=7\n", "checker": "interactor says " + hiddenAnswer},
	))
	return waWithCheckerMessage(t, call)
}

func TestCaseDetailShowsTheOwnerSamplesOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.judge.Set(e.waWithOutput, 0)
	ctx := context.Background()
	id := e.submit(e.alice, "print(12)")
	e.waitTerminal(id, 20*time.Second)

	// Case 2 is hidden (aplusb's sample is case 1): its owner gets the verdict, not
	// what the program wrote nor where its output goes wrong.
	got, err := e.alice.Case(ctx, id, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := wire.CaseDetail{SubmissionID: id, Attempt: 1, Case: wire.Case{Index: 2, Verdict: "WA",
		Message: "wrong answer"}, ExcerptsNote: "output not shown: this is a hidden test case, and a problem shows its owner the output of its sample cases only"}
	if *got != want {
		t.Fatalf("owner's case 2 = %+v, want %+v", *got, want)
	}
	// Raw, so that no field is lost by decoding: nothing of the answer reaches the owner.
	code, _, body := e.raw("GET", "/api/v1/submissions/"+id+"/cases/2", tokenOf(e.alice), nil, nil)
	raw, _ := json.Marshal(body)
	if code != 200 || strings.Contains(string(raw), hiddenAnswer) || strings.Contains(string(raw), "checker_message") ||
		strings.Contains(string(raw), "debug: a=5") {
		t.Fatalf("owner's raw case 2 = %d %s", code, raw)
	}

	a, err := e.admin.Case(ctx, id, 2)
	if err != nil || !strings.Contains(a.CheckerMessage, hiddenAnswer) || a.Stdout != "12\n" || a.Stderr != "debug: a=5 b=7\n" ||
		a.Message != "token 1 differs from the expected answer" {
		t.Fatalf("admin's case 2 = %+v %v, want the checker's whole message and the output", a, err)
	}
	// The sample case is the owner's to read whole.
	if c, err := e.alice.Case(ctx, id, 1); err != nil || c.Verdict != "AC" || c.Stdout != "3\n" || c.ExcerptsNote != "" || !c.Sample {
		t.Fatalf("owner's case 1 = %+v %v", c, err)
	}

	// Another user is told what a missing submission would tell: 404, same message.
	_, errBob := e.bob.Case(ctx, id, 2)
	_, errMissing := e.bob.Case(ctx, "0195a1b2-0000-7000-8000-000000000000", 2)
	if client.StatusOf(errBob) != 404 || !strings.Contains(errBob.Error(), "submission "+id+" not found") ||
		client.StatusOf(errMissing) != 404 {
		t.Fatalf("other user: %v; missing submission: %v", errBob, errMissing)
	}
	if code, _, _ := e.raw("GET", "/api/v1/submissions/"+id+"/cases/2", "", nil, nil); code != 401 {
		t.Fatalf("no token: %d, want 401", code)
	}
}

func TestCaseDetailRefusesBadAndMissingCases(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.judge.Set(e.waWithOutput, 0)
	id := e.submit(e.alice, "print(12)")
	e.waitTerminal(id, 20*time.Second)
	tests := []struct {
		n        string
		code     int
		contains string
	}{
		{"0", 400, "positive integer"},
		{"-1", 400, "positive integer"},
		{"two", 400, "positive integer"},
		{"99999999999999999999", 400, "positive integer"},
		{"3", 404, "has no case 3 (its cases are 1-2)"},
	}
	for _, tc := range tests {
		code, _, body := e.raw("GET", "/api/v1/submissions/"+id+"/cases/"+tc.n, tokenOf(e.alice), nil, nil)
		raw, _ := json.Marshal(body)
		if code != tc.code || !strings.Contains(string(raw), tc.contains) {
			t.Errorf("case %q: %d %s, want %d with %q", tc.n, code, raw, tc.code, tc.contains)
		}
	}

	// Not judged yet: the judge holds the attempt until the check is done.
	release := make(chan struct{})
	e.judge.Set(func(tk job.Task, call int) (job.Outcome, error) {
		<-release
		return e.waWithOutput(tk, call)
	}, 0)
	pending := e.submit(e.alice, "print(13)")
	_, err := e.alice.Case(context.Background(), pending, 1)
	close(release)
	if client.StatusOf(err) != 404 || !strings.Contains(err.Error(), "no case results yet: state ") {
		t.Fatalf("case of an unjudged submission: %v", err)
	}

	// A compile error has no cases: the answer says where to look.
	e.judge.Set(func(job.Task, int) (job.Outcome, error) {
		return job.Outcome{Verdict: job.VerdictCE, CompileOutput: "a.py: invalid syntax"}, nil
	}, 0)
	ce := e.submit(e.alice, "print(")
	e.waitTerminal(ce, 20*time.Second)
	if _, err := e.alice.Case(context.Background(), ce, 1); client.StatusOf(err) != 404 || !strings.Contains(err.Error(), "compile_output") {
		t.Fatalf("case of a CE submission: %v", err)
	}
}

// The object store is not trusted: a case without excerpts, an excerpt that is not
// text, and an object that is not JSON still answer the case, and say what is missing
// (case 2 is hidden from its owner: an admin reads it; case 1 is the sample).
func TestCaseDetailWithoutUsableExcerpts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	ctx := context.Background()
	e.judge.Set(waWithCheckerMessage, 0) // stores no excerpts, like store_artefacts: false
	id := e.submit(e.alice, "print(12)")
	e.waitTerminal(id, 20*time.Second)
	c, err := e.admin.Case(ctx, id, 2)
	if err != nil || c.Verdict != "WA" || c.Stdout != "" || !strings.Contains(c.ExcerptsNote, "store_artefacts") {
		t.Fatalf("case without excerpts = %+v %v", c, err)
	}

	e.putArtefact(id, 1, "cases.json", casesJSON(map[string]any{"index": 2, "stdout": "a\x00b\xffc", "stderr": strings.Repeat("e", 100<<10)}))
	c, err = e.admin.Case(ctx, id, 2)
	if err != nil || c.Stdout != "a\uFFFDb\uFFFDc" || len(c.Stderr) > 65<<10 || !strings.HasSuffix(c.Stderr, "[truncated]") {
		t.Fatalf("hostile excerpts = %q %d bytes of stderr, %v", c.Stdout, len(c.Stderr), err)
	}
	if c, err = e.alice.Case(ctx, id, 1); err != nil || !strings.Contains(c.ExcerptsNote, "no output excerpt of case 1") {
		t.Fatalf("case missing from the object = %+v %v", c, err)
	}

	e.putArtefact(id, 1, "cases.json", []byte(`{"cases":[{"index":2,"stdout":`))
	c, err = e.admin.Case(ctx, id, 2)
	if err != nil || c.Verdict != "WA" || !strings.Contains(c.ExcerptsNote, "not valid JSON") {
		t.Fatalf("case with a broken object = %+v %v", c, err)
	}
}
