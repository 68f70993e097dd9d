package judge

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"oj/core/job"
)

// A run compiles once, then runs each input with the run's own limits and reports how
// each ended: the resource statuses in the judge's precedence, a sandbox failure of one
// input as SE on that input alone, output kept up to the run's bound and marked
// truncated past it.
func TestRunCompilesOnceAndReportsEachInput(t *testing.T) {
	t.Parallel()
	var compiles atomic.Int32
	fr := &fakeRunner{script: map[string]fakeRun{
		"ok":   {stdout: "hello\n", stderr: "warn\n"},
		"long": {stdout: strings.Repeat("y", 100)},
		"tle":  {res: Result{Status: StatusTLE, Signal: 9}},
		"mle":  {res: Result{Status: StatusMLE, Signal: 9}},
		"re":   {res: Result{Status: StatusRE, ExitCode: 2}, stderr: "boom"},
		"sig":  {res: Result{Status: StatusRE, Signal: 11}},
		"se":   {res: Result{Status: StatusSE, Error: "cgroup vanished"}},
	}, compile: func(s Spec) (Result, error) {
		compiles.Add(1)
		return Result{Status: StatusOK}, nil
	}}
	j, _ := fakeJudge(t, fr)
	inputs := []string{"ok", "long", "tle", "mle", "re", "sig", "se"}
	spec := &job.RunSpec{Stdins: inputs, TimeMS: 1500, MemoryMB: 64, OutputBytes: 10}
	d, err := j.Decide(context.Background(), job.Task{SubmissionID: "r1", Attempt: 1, Language: "fakec", Source: "int main(){}",
		Lane: job.LaneRun, Kind: job.KindRun, Run: spec})
	if err != nil {
		t.Fatal(err)
	}
	out := d.Outcome
	if compiles.Load() != 1 || d.Keep != nil || out.Verdict != "" || !job.ValidRunOutcome(out, len(inputs)) {
		t.Fatalf("%d compiles, keep %v, outcome %+v", compiles.Load(), d.Keep != nil, out)
	}
	want := []struct {
		status    job.RunStatus
		stdout    string
		truncated bool
	}{
		{job.RunOK, "hello\n", false}, {job.RunOK, strings.Repeat("y", 10), true}, {job.RunTLE, "", false},
		{job.RunMLE, "", false}, {job.RunRE, "", false}, {job.RunRE, "", false}, {job.RunSE, "", false},
	}
	for i, w := range want {
		r := out.Runs[i]
		if r.Index != i+1 || r.Status != w.status || r.Stdout != w.stdout || r.StdoutTruncated != w.truncated {
			t.Errorf("input %q: %+v, want %s %q truncated %v", inputs[i], r, w.status, w.stdout, w.truncated)
		}
	}
	if r := out.Runs[0]; r.Stderr != "warn\n" || r.ExitCode != 0 {
		t.Errorf("ok: %+v", r)
	}
	if r := out.Runs[4]; r.ExitCode != 2 || r.Stderr != "boom" || r.Message != "exit code 2" {
		t.Errorf("re: %+v", r)
	}
	if r := out.Runs[5]; r.Signal != 11 || !strings.Contains(r.Message, "signal 11") {
		t.Errorf("signal: %+v", r)
	}
	if r := out.Runs[6]; !strings.Contains(r.Message, "cgroup vanished") {
		t.Errorf("se: %+v", r)
	}
}

// A source that does not compile is CE with the compiler's output, and nothing runs.
func TestRunThatDoesNotCompileIsCE(t *testing.T) {
	t.Parallel()
	fr := &fakeRunner{script: map[string]fakeRun{}, compile: func(s Spec) (Result, error) {
		if err := write(s.Stdout, "main.c:1: expected ';'\n"); err != nil {
			return Result{}, err
		}
		return Result{Status: StatusRE, ExitCode: 1}, nil
	}}
	j, _ := fakeJudge(t, fr)
	d, err := j.Decide(context.Background(), job.Task{SubmissionID: "r2", Attempt: 1, Language: "fakec", Source: "int main(",
		Lane: job.LaneRun, Kind: job.KindRun, Run: &job.RunSpec{Stdins: []string{"x"}, TimeMS: 1000, MemoryMB: 64, OutputBytes: 64}})
	if err != nil {
		t.Fatal(err)
	}
	if o := d.Outcome; o.Verdict != job.VerdictCE || !strings.Contains(o.CompileOutput, "expected ';'") || len(o.Runs) != 0 || fr.runs != 1 {
		t.Fatalf("outcome %+v after %d sandbox runs", o, fr.runs)
	}
}
