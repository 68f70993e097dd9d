package judge

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"oj/core/job"
	"oj/core/judge/problem"
)

// TestStopOnFirstFailure: with stop_on_first_failure, the cases after the first one
// that is not AC (in case order, subtasks or not) are not run: they are SK with the
// failing case's number, earn nothing, and the verdict is the failure's.
func TestStopOnFirstFailure(t *testing.T) {
	const stop = oneSecond + "stop_on_first_failure: true\n"
	ac, wa, tle := job.VerdictAC, job.VerdictWA, job.VerdictTLE
	sk := job.VerdictSK
	cases := []struct {
		name     string
		yaml     string
		verdicts []job.Verdict // what each case would give if run
		want     job.Verdict
		runs     int
		score    float64
		got      []job.Verdict // what the cases report
	}{
		{"stops after the first failure", stop, []job.Verdict{ac, wa, ac, tle, ac}, wa, 2, 20, []job.Verdict{ac, wa, sk, sk, sk}},
		{"a failure on the first case runs one", stop, []job.Verdict{tle, ac, ac}, tle, 1, 0, []job.Verdict{tle, sk, sk}},
		{"a failure on the last case skips nothing", stop, []job.Verdict{ac, ac, wa}, wa, 3, 66.666667, []job.Verdict{ac, ac, wa}},
		{"all AC runs all", stop, []job.Verdict{ac, ac, ac}, ac, 3, 100, []job.Verdict{ac, ac, ac}},
		{"without the option every case runs", oneSecond + "stop_on_first_failure: false\n", []job.Verdict{ac, wa, ac, tle, ac}, wa, 5, 60, []job.Verdict{ac, wa, ac, tle, ac}},
		{"subtasks stop in case order too", stop + "subtasks:\n  - {score: 40, cases: [3, 4]}\n  - {score: 60, cases: [1, 2]}\n",
			[]job.Verdict{ac, ac, wa, ac}, wa, 3, 60, []job.Verdict{ac, ac, wa, sk}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files, script := scripted(t, c.yaml, c.verdicts...)
			fr := &fakeRunner{script: script}
			j, store := fakeJudge(t, fr)
			var reported []job.Verdict
			ctx := job.WithProgress(context.Background(), func(cr job.CaseResult) { reported = append(reported, cr.Verdict) })
			out := judgeFakeCtx(t, ctx, j, store, files)
			if out.Verdict != c.want || out.Score != c.score || fr.runs != c.runs {
				t.Fatalf("%s %v after %d runs, want %s %v after %d; %+v", out.Verdict, out.Score, fr.runs, c.want, c.score, c.runs, out.Cases)
			}
			var got []job.Verdict
			for _, cr := range out.Cases {
				got = append(got, cr.Verdict)
				if cr.Verdict == sk {
					if want := fmt.Sprintf("skipped after case %d failed", c.runs); cr.Message != want || cr.Score != 0 || cr.TimeMS != 0 {
						t.Errorf("case %d: %+v, want message %q, no score, no time", cr.Index, cr, want)
					}
				}
			}
			if !slices.Equal(got, c.got) || !slices.Equal(reported, c.got) {
				t.Fatalf("cases %v (progress reported %v), want %v", got, reported, c.got)
			}
		})
	}
}

// TestScoreIgnoresSkippedCases: a skipped case never decides the verdict, whatever the
// failure before it was (PC and SE included).
func TestScoreIgnoresSkippedCases(t *testing.T) {
	co := func(i int, v job.Verdict, points float64) caseOutcome {
		return caseOutcome{res: job.CaseResult{Index: i, Verdict: v}, points: points}
	}
	for _, c := range []struct {
		name  string
		cases []caseOutcome
		want  job.Verdict
	}{
		{"PC then skipped is PC", []caseOutcome{co(1, job.VerdictAC, 1), co(2, job.VerdictPC, 0.5), co(3, job.VerdictSK, 0)}, job.VerdictPC},
		{"SE then skipped is SE", []caseOutcome{co(1, job.VerdictSE, 0), co(2, job.VerdictSK, 0)}, job.VerdictSE},
		{"WA then skipped is WA", []caseOutcome{co(1, job.VerdictWA, 0), co(2, job.VerdictSK, 0)}, job.VerdictWA},
	} {
		t.Run(c.name, func(t *testing.T) {
			if out := score(problem.Spec{StopOnFirstFailure: true}, c.cases); out.Verdict != c.want {
				t.Fatalf("verdict %s, want %s", out.Verdict, c.want)
			}
		})
	}
}

// countingRunner counts the runs of a solution (a run with an input; compiles have none).
type countingRunner struct {
	Runner
	solutionRuns atomic.Int64
}

func (c *countingRunner) Run(ctx context.Context, s Spec) (Result, error) {
	if s.Stdin != nil {
		c.solutionRuns.Add(1)
	}
	return c.Runner.Run(ctx, s)
}

// TestStopOnFirstFailureSandboxed: a real solution that never ends costs one time limit,
// not five: it runs on case 1 only, and cases 2..5 are skipped.
func TestStopOnFirstFailureSandboxed(t *testing.T) {
	needSandbox(t)
	if !testJudge.Supports("c11") {
		t.Skipf("toolchain missing: %v", testJudge.Unavailable())
	}
	files := map[string]string{"problem.yaml": "title: Stop\ntime_limit_ms: 300\nstop_on_first_failure: true\n"}
	for i := 1; i <= 5; i++ {
		files[fmt.Sprintf("tests/%d.in", i)], files[fmt.Sprintf("tests/%d.out", i)] = "1 2\n", "3\n"
	}
	sha := putProblem(t, files)
	cfg := DefaultConfig()
	cfg.WorkDir = filepath.Join(testRoot, "stop", "work")
	cfg.Cache.Dir = filepath.Join(testRoot, "stop", "cache")
	cfg.PrecompiledHeaders = false
	runner := &countingRunner{Runner: SandboxRunner{Pool: testPool}}
	j, err := New(cfg, runner, testStore, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	out := judgeWith(t, j, sha, "c11", readSource(t, "corpus/c11/tle.c"))
	if out.Verdict != job.VerdictTLE || out.Score != 0 || len(out.Cases) != 5 {
		t.Fatalf("%s %v, %d cases; want TLE 0 with 5 cases: %+v", out.Verdict, out.Score, len(out.Cases), out.Cases)
	}
	if n := runner.solutionRuns.Load(); n != 1 {
		t.Fatalf("the solution ran %d times, want 1", n)
	}
	for _, c := range out.Cases[1:] {
		if c.Verdict != job.VerdictSK || c.Message != "skipped after case 1 failed" {
			t.Fatalf("case %d: %+v, want SK after case 1", c.Index, c)
		}
	}
	if out.Cases[0].Verdict != job.VerdictTLE {
		t.Fatalf("case 1: %+v", out.Cases[0])
	}
}
