package judge

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/judge/objstore"
	"oj/core/judge/problem/problemtest"
	"oj/sandbox"
)

// A compile that writes more than the sandbox copies back (files, links, bytes) is the
// source's doing: a compile error that says so, never a system error retried until the
// submission is dead-lettered.
func TestCompileOverTheWriteBackLimitsIsACompileError(t *testing.T) {
	fr := &fakeRunner{script: map[string]fakeRun{}, compile: func(Spec) (Result, error) {
		err := fmt.Errorf("sandbox: copy the work dir back: %w: 12001 entries, over 10000 (at \"a/b\")", sandbox.ErrWriteBackLimit)
		return Result{Status: StatusSE, Error: err.Error()}, err
	}}
	j, store := fakeJudge(t, fr)
	sha, err := objstore.PutProblem(context.Background(), store, problemtest.Zip(problemtest.APlusB("title: A+B\n")))
	if err != nil {
		t.Fatal(err)
	}
	out, err := j.Judge(context.Background(), job.Task{SubmissionID: "wb", ProblemSHA256: sha, Language: "fakec",
		Source: "int main(){}", Attempt: 1})
	if err != nil {
		t.Fatalf("judge: %v (want a verdict)", err)
	}
	if out.Verdict != job.VerdictCE || !strings.Contains(out.CompileOutput, "compilation wrote more than the judge keeps") ||
		!strings.Contains(out.CompileOutput, "12001 entries") {
		t.Fatalf("verdict %s, compile output %q", out.Verdict, out.CompileOutput)
	}
}

// A compile cut by its CPU limit, or by its wall limit while idle (a source that
// includes a pipe nothing writes to), is the source's doing: CE naming the limits. The
// sandbox keeps the host's delays out of the wall limit (Result.Stalled), so a busy host
// does not turn into a compile error; past sandbox.max_stall the run is SE, retried.
func TestCompileTimeLimits(t *testing.T) {
	cases := []struct {
		name string
		res  Result
	}{
		{"over its CPU limit", Result{Status: StatusTLE, CPU: 11 * time.Second, Wall: 12 * time.Second}},
		{"idle past its wall limit", Result{Status: StatusTLE, CPU: 2 * time.Second, Wall: 24 * time.Second, Stalled: 3 * time.Second}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fr := &fakeRunner{script: map[string]fakeRun{}, compile: func(Spec) (Result, error) { return c.res, nil }}
			j, store := fakeJudge(t, fr)
			sha, err := objstore.PutProblem(context.Background(), store, problemtest.Zip(problemtest.APlusB("title: A+B\n")))
			if err != nil {
				t.Fatal(err)
			}
			out, err := j.Judge(context.Background(), job.Task{SubmissionID: "tl-" + c.name, Attempt: 1, ProblemSHA256: sha,
				Language: "fakec", Source: "int main(){}"})
			if err != nil || out.Verdict != job.VerdictCE || !strings.Contains(out.CompileOutput, "compilation exceeded its time limit") {
				t.Fatalf("verdict %s, compile output %q, err %v: want CE naming the time limit", out.Verdict, out.CompileOutput, err)
			}
		})
	}
}
