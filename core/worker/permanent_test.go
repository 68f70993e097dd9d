package worker_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/judge"
	"oj/core/testenv"
)

// A permanent judge error (a broken package) ends the submission at once as SE with the
// error as its reason; a transient one is retried up to max_attempts and the dead
// submission keeps the last attempt's error; an SE verdict of the judge's own carries
// the failing case's message.
func TestErrorsEndSubmissionsWithTheirReason(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	broken := judge.Permanent(&judge.ToolCompileError{Kind: "checker", Source: "checker.cpp",
		Output: "checker.cpp:1:10: fatal error: testlib.h: No such file or directory"})
	var permanent, transient, checkerSE string
	j := newScripted(func(t job.Task, call int) (job.Outcome, error) {
		switch t.SubmissionID {
		case permanent:
			return job.Outcome{}, fmt.Errorf("judge %s: %w", t.SubmissionID, broken)
		case transient:
			return job.Outcome{}, fmt.Errorf("object store unreachable (call %d)", call)
		case checkerSE:
			return job.Outcome{Verdict: job.VerdictSE, Cases: []job.CaseResult{
				{Index: 1, Verdict: job.VerdictAC},
				{Index: 2, Verdict: job.VerdictSE, Message: "checker failed (exit 3)"}}}, nil
		}
		return testenv.Accept(t, call)
	})
	ids := h.submit(4, job.LaneHeavy, 3)
	permanent, transient, checkerSE = ids[0], ids[1], ids[2]
	h.startDispatcher()
	h.startWorker(testWorkerConfig("w1"), j)
	done := h.waitTerminal(ids, 30*time.Second)

	p := done[permanent]
	if p.State != job.StateFinished || p.Verdict != job.VerdictSE || j.Calls(permanent) != 1 || p.Failures != 0 {
		t.Errorf("permanent: state %s verdict %s, judged %d times, %d failures; want finished SE judged once",
			p.State, p.Verdict, j.Calls(permanent), p.Failures)
	}
	if !strings.Contains(p.LastError, "checker checker.cpp does not compile") || !strings.Contains(p.LastError, "testlib.h") {
		t.Errorf("permanent: error %q, want the checker's compile error", p.LastError)
	}
	tr := done[transient]
	if tr.State != job.StateDead || tr.Verdict != job.VerdictSE || j.Calls(transient) != 3 {
		t.Errorf("transient: state %s verdict %s, judged %d times; want dead SE after 3", tr.State, tr.Verdict, j.Calls(transient))
	}
	if tr.LastError != "object store unreachable (call 3)" {
		t.Errorf("transient: error %q, want the last attempt's", tr.LastError)
	}
	c := done[checkerSE]
	if c.Verdict != job.VerdictSE || c.LastError != "case 2: checker failed (exit 3)" {
		t.Errorf("checker SE: verdict %s error %q", c.Verdict, c.LastError)
	}
	if a := done[ids[3]]; a.Verdict != job.VerdictAC || a.LastError != "" {
		t.Errorf("accepted: verdict %s error %q, want AC without error", a.Verdict, a.LastError)
	}
	if !errors.Is(fmt.Errorf("x: %w", broken), broken) || !judge.IsPermanent(fmt.Errorf("x: %w", broken)) {
		t.Error("a wrapped permanent error is no longer recognised")
	}
}
