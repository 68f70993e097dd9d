package judge

import (
	"context"
	"strings"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/judge/objstore"
	"oj/core/judge/problem/problemtest"
)

// A compile over its CPU limit is the source's doing: CE. One ended at its wall limit
// with CPU time to spare waited on the host (a compiler does not idle by itself): an
// error, so that the submission is compiled again later, never a CE it did not earn.
func TestCompileTimeLimits(t *testing.T) {
	cases := []struct {
		name    string
		res     Result
		wantErr string
	}{
		{"over its CPU limit is CE", Result{Status: StatusTLE, CPU: 11 * time.Second, Wall: 12 * time.Second}, ""},
		{"over its wall limit with CPU to spare is an error to retry",
			Result{Status: StatusTLE, CPU: 2 * time.Second, Wall: 21 * time.Second, Stalled: 3 * time.Second}, "wall time limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fr := &fakeRunner{script: map[string]fakeRun{"": {res: c.res, stderr: "cc: busy\n"}}}
			j, store := fakeJudge(t, fr)
			ctx := context.Background()
			sha, err := objstore.PutProblem(ctx, store, problemtest.Zip(problemtest.Cases(
				map[string]string{"problem.yaml": oneSecond}, [2]string{"1\n", "1\n"})))
			if err != nil {
				t.Fatal(err)
			}
			out, err := j.Judge(ctx, job.Task{SubmissionID: "compile-" + c.name, Attempt: 1, ProblemSHA256: sha,
				Language: "fakec", Source: "scripted"})
			switch {
			case c.wantErr == "" && (err != nil || out.Verdict != job.VerdictCE || !strings.Contains(out.CompileOutput, "time limit")):
				t.Fatalf("verdict %s, compile output %q, err %v: want CE naming the time limit", out.Verdict, out.CompileOutput, err)
			case c.wantErr != "" && (err == nil || IsPermanent(err) || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("verdict %s, err %v: want a retryable error naming the %s", out.Verdict, err, c.wantErr)
			}
		})
	}
}
