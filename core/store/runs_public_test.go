package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/store"
	"oj/core/testenv"
)

// odd holds what neither a JSON string nor PostgreSQL text can carry: NUL and bytes
// that are not UTF-8.
const odd = "a\x00\xff\xfe\x80z"

// A run's inputs, outputs and compile output come back from PostgreSQL byte for byte,
// whatever the bytes.
func TestRunBytesRoundTripExactly(t *testing.T) {
	t.Parallel()
	db := testenv.DB(t)
	ctx := context.Background()
	now := time.Now()
	spec := job.RunSpec{Stdins: []string{odd, "plain"}, TimeMS: 1000, MemoryMB: 64, OutputBytes: 64,
		Args: []string{"x"}, Files: []byte{0, 1, 2, 0xff}}
	ok, err := store.SubmitRun(ctx, db, store.NewRun{Language: "c11", Source: "int main(){}", Spec: spec, TraceID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	ce, err := store.SubmitRun(ctx, db, store.NewRun{Language: "c11", Source: "int main(", Spec: spec, TraceID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := store.ClaimBatch(ctx, db, []string{ok, ce}, "w", now, time.Minute, nil)
	if err != nil || res[0].Outcome != store.Claimed || res[1].Outcome != store.Claimed {
		t.Fatalf("claim: %+v %v", res, err)
	}
	if got := res[0].Task.Run; got.Stdins[0] != odd || got.Stdins[1] != "plain" || string(got.Files) != string(spec.Files) {
		t.Fatalf("claimed spec: %+v", got)
	}
	runs := []job.RunResult{{Index: 1, Status: job.RunOK, Stdout: odd, Stderr: odd + odd}, {Index: 2, Status: job.RunOK, Stdout: "plain"}}
	errs, err := store.FinalizeBatch(ctx, db, "w", []store.Result{
		{Lease: store.Lease{ID: ok, Attempt: res[0].Task.Attempt}, Outcome: job.Outcome{Runs: runs, CompileOutput: "warning: " + odd}},
		{Lease: store.Lease{ID: ce, Attempt: res[1].Task.Attempt}, Outcome: job.Outcome{Verdict: job.VerdictCE, CompileOutput: odd}},
	}, now)
	if err != nil || errs[0] != nil || errs[1] != nil {
		t.Fatalf("finalize: %v %v", errs, err)
	}
	got, err := store.GetRun(ctx, db, ok)
	if err != nil {
		t.Fatal(err)
	}
	if r := got.RunResults; r[0].Stdout != odd || r[0].Stderr != odd+odd || r[1].Stdout != "plain" ||
		got.CompileOutput != "warning: "+odd || got.Run.Stdins[0] != odd {
		t.Fatalf("run: %q %q %q %q", r[0].Stdout, r[0].Stderr, got.CompileOutput, got.Run.Stdins)
	}
	if got, err := store.GetRun(ctx, db, ce); err != nil || got.Verdict != job.VerdictCE || got.CompileOutput != odd {
		t.Fatalf("CE run: %+v %v", got, err)
	}
	// Plain text stays readable in the column: only what needs it is base64.
	if n := count(t, db, `SELECT count(*) FROM submissions WHERE id = $1 AND run_results->1->>'stdout' = 'plain'
		AND run_results->0->>'stdout' = '' AND run_results->0 ? 'stdout_b64'`, ok); n != 1 {
		t.Fatal("run_results does not keep plain text as text and the rest as base64")
	}
}

// A public token reads its run, alone or in a batch (in the tokens' order, nil for a
// token no run has); it is unique; and a run carries its origin and callback.
func TestRunsByPublicToken(t *testing.T) {
	t.Parallel()
	db := testenv.DB(t)
	ctx := context.Background()
	spec, _ := job.DefaultRunsConfig().Spec([]string{""}, 0, 0)
	tok := "judge0-token-0123456789abcdef"
	id, err := store.SubmitRun(ctx, db, store.NewRun{Language: "c11", Source: "x", Spec: spec, TraceID: "t",
		PublicToken: tok, Callback: "http://example.com/cb", Origin: store.OriginJudge0})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := store.SubmitRun(ctx, db, store.NewRun{Language: "c11", Source: "x", Spec: spec, TraceID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.GetRunByPublicToken(ctx, db, tok)
	if err != nil || got.ID != id || got.PublicToken != tok || got.Callback != "http://example.com/cb" || got.Origin != store.OriginJudge0 {
		t.Fatalf("by token: %+v %v", got, err)
	}
	if p, err := store.GetRun(ctx, db, plain); err != nil || p.Origin != store.OriginAPI || p.PublicToken != "" {
		t.Fatalf("a run of the API: %+v %v", p, err)
	}
	if _, err := store.GetRunByPublicToken(ctx, db, "no-such-token-at-all"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown token: %v", err)
	}
	if _, err := store.GetRunByPublicToken(ctx, db, ""); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("empty token: %v", err)
	}
	_, err = store.SubmitRun(ctx, db, store.NewRun{Language: "c11", Source: "x", Spec: spec, TraceID: "t", PublicToken: tok})
	if !errors.Is(err, store.ErrPublicTokenTaken) {
		t.Fatalf("a second run with the token: %v", err)
	}
	batch, err := store.GetRunsByPublicTokens(ctx, db, []string{"no-such-token-at-all", tok, tok})
	if err != nil || len(batch) != 3 || batch[0] != nil || batch[1] == nil || batch[1].ID != id || batch[2] == nil {
		t.Fatalf("batch: %+v %v", batch, err)
	}
	if _, err := store.GetRunsByPublicTokens(ctx, db, make([]string, store.MaxPublicTokens+1)); err == nil {
		t.Fatal("a batch over the maximum was read")
	}
}
