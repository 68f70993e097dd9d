package verification

import (
	"strings"
	"testing"

	"oj/core/job"
	"oj/core/store"
)

func run(verdict job.Verdict, times ...int) *store.Submission {
	s := &store.Submission{State: job.StateFinished, Verdict: verdict}
	for i, t := range times {
		v := job.VerdictAC
		if i == len(times)-1 {
			v = verdict
		}
		s.Cases = append(s.Cases, job.CaseResult{Index: i + 1, Verdict: v, TimeMS: t})
	}
	return s
}

func TestComputeDerivesTheLimitAndHoldsVerdictsToIt(t *testing.T) {
	entries := []store.VerifyEntry{
		{Source: "ac.c", Language: "c11", Expect: []string{"AC"}, TimeLimit: true, SubmissionID: "1"},
		{Source: "ac.py", Language: "python3", Expect: []string{"AC"}, TimeLimit: true, SubmissionID: "2"},
		{Source: "slow.c", Language: "c11", Expect: []string{"TLE"}, TimeLimit: true, SubmissionID: "3"},
		{Source: "fast-tle.c", Language: "c11", Expect: []string{"TLE"}, TimeLimit: true, SubmissionID: "4"},
		{Source: "close-tle.c", Language: "c11", Expect: []string{"TLE"}, TimeLimit: true, SubmissionID: "5"},
		{Source: "wa.c", Language: "c11", Expect: []string{"WA"}, TimeLimit: true, SubmissionID: "6"},
		{Source: "wrong.c", Language: "c11", Expect: []string{"AC"}, TimeLimit: true, SubmissionID: "7"},
		{Source: "x.hs", Expect: []string{"AC"}, Note: "no oj language for .hs files"},
	}
	runs := map[string]*store.Submission{
		"1": run(job.VerdictAC, 100, 230),
		"2": run(job.VerdictAC, 600), // 300 ms at factor 1
		"3": run(job.VerdictTLE, 10000),
		"4": run(job.VerdictAC, 200),  // passes within the limit: ambiguous
		"5": run(job.VerdictAC, 1100), // over the limit, within limit × 1.5
		"6": run(job.VerdictWA, 5),
		"7": run(job.VerdictWA, 5),
	}
	r := Compute(Input{RunLimitMS: 10000, Timing: Timing{Derive: true, ACToTimeLimit: 2, TimeLimitToTLE: 1.5, ResolutionMS: 500},
		Entries: entries, Runs: runs, Factor: func(l string) float64 {
			if l == "python3" {
				return 2
			}
			return 1
		}})
	// Slowest accepted: 300 ms (Python's 600 at factor 2) × 2 = 600, up to 1000.
	if !r.Derived || r.LimitMS != 1000 || r.SlowestACMS != 300 || r.SlowestACSource != "ac.py" || r.Margin != 3.33 {
		t.Fatalf("limit %+v", r)
	}
	// The divided time is never left to pass for a measurement: the measured one and the
	// factor that divided it are beside it.
	if r.SlowestACMeasuredMS != 600 || r.SlowestACFactor != 2 || r.SlowestACLanguage != "python3" {
		t.Fatalf("slowest accepted as measured: %+v", r)
	}
	for _, row := range r.Rows {
		if row.Source == "ac.py" && (row.TimeFactor != 2 || row.LimitMS != 2000) {
			t.Fatalf("the python row's limit is the limit × its factor: %+v", row)
		}
	}
	want := map[string]string{"ac.c": AsLabeled, "ac.py": AsLabeled, "slow.c": AsLabeled, "fast-tle.c": Ambiguous,
		"close-tle.c": Ambiguous, "wa.c": AsLabeled, "wrong.c": NotAsLabeled, "x.hs": NotRun}
	for _, row := range r.Rows {
		if row.Status != want[row.Source] {
			t.Errorf("%s: %s (%s), want %s", row.Source, row.Status, row.Note, want[row.Source])
		}
	}
	if r.Passed || r.Summary != "4 as labeled, 1 not, 2 ambiguous, 1 not run" {
		t.Fatalf("summary %q passed %v", r.Summary, r.Passed)
	}
	for _, row := range r.Rows {
		if row.Source == "close-tle.c" && (row.Got != "TLE" || !strings.Contains(row.Note, "1100 ms of 1000 ms")) {
			t.Fatalf("close TLE: %+v", row)
		}
	}
	// Without an accepted submission nothing can be derived: failed, saying why.
	r = Compute(Input{RunLimitMS: 10000, Timing: Timing{Derive: true, ACToTimeLimit: 2, ResolutionMS: 1000},
		Entries: entries[5:6], Runs: runs})
	if r.Passed || len(r.Problems) != 1 {
		t.Fatalf("no accepted: %+v", r)
	}
}

func TestHeldToTheLimitTheFirstFailureDecides(t *testing.T) {
	s := &store.Submission{State: job.StateFinished, Verdict: job.VerdictWA, Cases: []job.CaseResult{
		{Index: 1, Verdict: job.VerdictAC, TimeMS: 1200}, {Index: 2, Verdict: job.VerdictWA, TimeMS: 3}}}
	if v := held(s, 1000, false, false); v != job.VerdictTLE {
		t.Fatalf("case 1 over the limit comes first: %s", v)
	}
	if v := held(s, 1000, true, false); v != job.VerdictWA {
		t.Fatalf("with scoring the run's verdict stands: %s", v)
	}
	// An interactor's rejection, then a solution spinning until the run limit: WA.
	spin := &store.Submission{State: job.StateFinished, Verdict: job.VerdictWA, Cases: []job.CaseResult{
		{Index: 1, Verdict: job.VerdictWA, TimeMS: 10000}}}
	if v := held(spin, 1000, false, true); v != job.VerdictWA {
		t.Fatalf("interactive rejection: %s", v)
	}
	if v := held(spin, 1000, false, false); v != job.VerdictTLE {
		t.Fatalf("not interactive: %s", v)
	}
}
