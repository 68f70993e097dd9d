package judge

import (
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/judge/problem"
	"oj/core/judge/problem/problemtest"
)

// The tests of this file judge through a fakeRunner: no root, sandbox or toolchain.

// oneSecond is a problem.yaml with a 1 s CPU limit (so 4 s of wall time at the
// default factors) and 64 MiB.
const oneSecond = "title: Scripted\ntime_limit_ms: 1000\nmemory_limit_mb: 64\n"

// TestCaseVerdictPrecedence: DESIGN.md's precedence for one run — MLE, then TLE (CPU
// or wall), OLE, RE — with output over the limit counted as OLE ahead of TLE and RE,
// and the checker deciding only a run that ended normally.
func TestCaseVerdictPrecedence(t *testing.T) {
	const answer = "1 2\n"
	cases := []struct {
		name    string
		run     fakeRun
		checker string
		want    job.Verdict
	}{
		{"MLE beats a CPU overrun and a signal", fakeRun{res: Result{Status: StatusMLE, CPU: 2 * time.Second, Signal: 9}}, "", job.VerdictMLE},
		{"output over the limit beats TLE", fakeRun{res: Result{Status: StatusTLE, CPU: 2 * time.Second}, overflow: true}, "", job.VerdictOLE},
		{"output over the limit beats RE", fakeRun{res: Result{Status: StatusRE, ExitCode: 1}, overflow: true}, "", job.VerdictOLE},
		{"TLE status is TLE", fakeRun{res: Result{Status: StatusTLE, Signal: 9}}, "", job.VerdictTLE},
		{"CPU over the limit is TLE even with the right answer", fakeRun{res: Result{CPU: 1500 * time.Millisecond}, stdout: answer}, "", job.VerdictTLE},
		{"wall time over the limit is the runner's TLE to call", fakeRun{res: Result{Status: StatusTLE, Wall: 5 * time.Second}, stdout: answer}, "", job.VerdictTLE},
		{"wall time over the limit while held up by the host is no TLE", fakeRun{res: Result{Wall: 5 * time.Second, Stalled: 4 * time.Second}, stdout: answer}, "", job.VerdictAC},
		{"TLE beats RE", fakeRun{res: Result{Status: StatusRE, CPU: 2 * time.Second, ExitCode: 1}}, "", job.VerdictTLE},
		{"OLE status is OLE", fakeRun{res: Result{Status: StatusOLE, Signal: 9}}, "", job.VerdictOLE},
		{"SIGXFSZ is OLE", fakeRun{res: Result{Status: StatusRE, Signal: int(syscall.SIGXFSZ)}}, "", job.VerdictOLE},
		{"non-zero exit is RE", fakeRun{res: Result{Status: StatusRE, ExitCode: 3}, stdout: answer}, "", job.VerdictRE},
		{"a signal is RE", fakeRun{res: Result{Status: StatusRE, Signal: int(syscall.SIGSEGV)}}, "", job.VerdictRE},
		{"the runtime's out-of-memory marker turns RE into MLE", fakeRun{res: Result{Status: StatusRE, ExitCode: 1}, stderr: "Traceback\nfake: out of memory\n"}, "", job.VerdictMLE},
		{"the marker does not touch a clean exit", fakeRun{stdout: answer, stderr: "fake: out of memory\n"}, "", job.VerdictAC},
		{"right answer is AC", fakeRun{stdout: answer}, "", job.VerdictAC},
		{"wrong answer is WA", fakeRun{stdout: "1 3\n"}, "", job.VerdictWA},
		{"only spacing differs under exact is PE", fakeRun{stdout: "1  2\n"}, "exact", job.VerdictPE},
	}
	fr := &fakeRunner{script: map[string]fakeRun{}}
	for i, c := range cases {
		fr.script[fmt.Sprintf("%d\n", i)] = c.run
	}
	j, store := fakeJudge(t, fr)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			yaml := oneSecond
			if c.checker != "" {
				yaml += "checker: {type: " + c.checker + "}\n"
			}
			out := judgeFake(t, j, store, problemtest.Cases(map[string]string{"problem.yaml": yaml}, [2]string{fmt.Sprintf("%d\n", i), answer}))
			if len(out.Cases) != 1 || out.Cases[0].Verdict != c.want || out.Verdict != c.want {
				t.Fatalf("verdict %s, cases %+v; want %s", out.Verdict, out.Cases, c.want)
			}
		})
	}
}

// scripted builds a package whose case i has input "i" and answer "ok", and the
// script under which case i ends with verdicts[i-1] (AC, WA or TLE here).
func scripted(t *testing.T, yaml string, verdicts ...job.Verdict) (map[string]string, map[string]fakeRun) {
	t.Helper()
	files := map[string]string{"problem.yaml": yaml}
	script := map[string]fakeRun{}
	for i, v := range verdicts {
		in := fmt.Sprintf("%d\n", i+1)
		files[fmt.Sprintf("tests/%d.in", i+1)], files[fmt.Sprintf("tests/%d.out", i+1)] = in, "ok\n"
		// Each case's figures differ, so that the maxima are checked.
		res := Result{CPU: time.Duration(100*(i+1)) * time.Millisecond, MemoryKB: int64(1000 * (i + 1))}
		switch v {
		case job.VerdictAC:
			script[in] = fakeRun{res: res, stdout: "ok\n"}
		case job.VerdictWA:
			script[in] = fakeRun{res: res, stdout: "no\n"}
		case job.VerdictTLE:
			res.Status, res.CPU = StatusTLE, 2*time.Second
			script[in] = fakeRun{res: res}
		default:
			t.Fatalf("no script for %s", v)
		}
	}
	return files, script
}

// TestSubmissionVerdictIsTheFirstFailure: without subtasks every case weighs 100/n; the
// verdict is the first case (by index) that is not AC; time and memory are the maxima.
func TestSubmissionVerdictIsTheFirstFailure(t *testing.T) {
	cases := []struct {
		name     string
		verdicts []job.Verdict
		want     job.Verdict
		score    float64
		scores   []float64
	}{
		{"all AC", []job.Verdict{job.VerdictAC, job.VerdictAC}, job.VerdictAC, 100, []float64{50, 50}},
		{"TLE before WA", []job.Verdict{job.VerdictAC, job.VerdictTLE, job.VerdictWA}, job.VerdictTLE, 33.333333, []float64{33.333333, 0, 0}},
		{"WA before TLE", []job.Verdict{job.VerdictAC, job.VerdictWA, job.VerdictTLE}, job.VerdictWA, 33.333333, []float64{33.333333, 0, 0}},
		{"one WA among ACs", []job.Verdict{job.VerdictAC, job.VerdictWA, job.VerdictAC}, job.VerdictWA, 66.666667, []float64{33.333333, 0, 33.333333}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files, script := scripted(t, oneSecond, c.verdicts...)
			j, store := fakeJudge(t, &fakeRunner{script: script})
			out := judgeFake(t, j, store, files)
			if out.Verdict != c.want || out.Score != c.score {
				t.Fatalf("%s %v, want %s %v; %+v", out.Verdict, out.Score, c.want, c.score, out.Cases)
			}
			var scores []float64
			for i, cr := range out.Cases {
				scores = append(scores, cr.Score)
				if cr.Index != i+1 || cr.Verdict != c.verdicts[i] || cr.Subtask != 0 {
					t.Errorf("case %d: %+v, want index %d, %s, no subtask", i, cr, i+1, c.verdicts[i])
				}
			}
			if !slices.Equal(scores, c.scores) {
				t.Errorf("case scores %v, want %v", scores, c.scores)
			}
			n := len(c.verdicts)
			maxTime := 100 * n
			if slices.Contains(c.verdicts, job.VerdictTLE) {
				maxTime = 2000
			}
			if out.TimeMS != maxTime || out.MemoryKB != 1000*n {
				t.Errorf("time %d ms, memory %d KiB; want the maxima %d and %d", out.TimeMS, out.MemoryKB, maxTime, 1000*n)
			}
		})
	}
}

// TestSubtasksScoreByTheirWeakestCase: a subtask earns its score only when every case
// of it passes (the smallest points fraction among them); cases show their share.
func TestSubtasksScoreByTheirWeakestCase(t *testing.T) {
	const yaml = oneSecond + "subtasks:\n  - {score: 30, cases: [1, 2]}\n  - {score: 70, cases: [3, 4]}\n"
	cases := []struct {
		name     string
		verdicts []job.Verdict
		want     job.Verdict
		score    float64
		scores   []float64
	}{
		{"small only", []job.Verdict{job.VerdictAC, job.VerdictAC, job.VerdictAC, job.VerdictWA}, job.VerdictWA, 30, []float64{15, 15, 35, 0}},
		{"large only", []job.Verdict{job.VerdictTLE, job.VerdictAC, job.VerdictAC, job.VerdictAC}, job.VerdictTLE, 70, []float64{0, 15, 35, 35}},
		{"all AC", []job.Verdict{job.VerdictAC, job.VerdictAC, job.VerdictAC, job.VerdictAC}, job.VerdictAC, 100, []float64{15, 15, 35, 35}},
		{"none", []job.Verdict{job.VerdictWA, job.VerdictAC, job.VerdictAC, job.VerdictTLE}, job.VerdictWA, 0, []float64{0, 15, 35, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files, script := scripted(t, yaml, c.verdicts...)
			j, store := fakeJudge(t, &fakeRunner{script: script})
			out := judgeFake(t, j, store, files)
			if out.Verdict != c.want || out.Score != c.score {
				t.Fatalf("%s %v, want %s %v; %+v", out.Verdict, out.Score, c.want, c.score, out.Cases)
			}
			var scores []float64
			for _, cr := range out.Cases {
				scores = append(scores, cr.Score)
				if want := 1 + (cr.Index-1)/2; cr.Subtask != want {
					t.Errorf("case %d in subtask %d, want %d", cr.Index, cr.Subtask, want)
				}
			}
			if !slices.Equal(scores, c.scores) {
				t.Errorf("case scores %v, want %v", scores, c.scores)
			}
		})
	}
}

// TestScoreVerdictPrecedence covers what only a testlib checker produces (PC, and SE
// for a broken one), on score itself: SE over any case, then the first failing case,
// then PC; partial points count towards the score.
func TestScoreVerdictPrecedence(t *testing.T) {
	co := func(v job.Verdict, points float64) caseOutcome {
		return caseOutcome{res: job.CaseResult{Verdict: v}, points: points}
	}
	cases := []struct {
		name  string
		cases []caseOutcome
		want  job.Verdict
		score float64
	}{
		{"PC among ACs is PC", []caseOutcome{co(job.VerdictAC, 1), co(job.VerdictPC, 0.5)}, job.VerdictPC, 75},
		{"WA beats an earlier PC", []caseOutcome{co(job.VerdictPC, 0.5), co(job.VerdictWA, 0)}, job.VerdictWA, 25},
		{"SE beats an earlier failure", []caseOutcome{co(job.VerdictWA, 0), co(job.VerdictAC, 1), co(job.VerdictSE, 0)}, job.VerdictSE, 33.333333},
		{"all AC", []caseOutcome{co(job.VerdictAC, 1)}, job.VerdictAC, 100},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for i := range c.cases {
				c.cases[i].res.Index = i + 1
			}
			out := score(problem.Spec{}, c.cases)
			if out.Verdict != c.want || out.Score != c.score {
				t.Fatalf("%s %v, want %s %v", out.Verdict, out.Score, c.want, c.score)
			}
		})
	}
}
