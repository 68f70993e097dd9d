package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"oj/core/api/client"
	"oj/core/job"
	"oj/core/wire"
)

// The hidden answer the scripted checker quotes in its message.
const hiddenAnswer = "4242"

// waWithCheckerMessage is a WA whose second case carries a contestant-safe message and
// the checker's whole message, which quotes the expected answer.
func waWithCheckerMessage(job.Task, int) (job.Outcome, error) {
	return job.Outcome{Verdict: job.VerdictWA, Score: 50, Cases: []job.CaseResult{
		{Index: 1, Verdict: job.VerdictAC, Score: 50},
		{Index: 2, Verdict: job.VerdictWA, Message: "token 1 differs from the expected answer",
			CheckerMessage: `token 1: expected "` + hiddenAnswer + `", found "12"`},
	}}, nil
}

func TestOwnerNeverSeesTheCheckersMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.judge.Set(waWithCheckerMessage, 0)
	e.judge.SetProgress(true)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	// The submit-with-wait answer.
	wait := int64(10_000)
	res, err := e.alice.Submit(ctx, wire.SubmitRequest{ProblemID: "aplusb", Language: "python3", Source: "print(12)", WaitMS: &wait}, "")
	if err != nil || res.Submission == nil {
		t.Fatalf("submit with wait: %+v %v", res, err)
	}
	ownerSees(t, "submit with wait_ms", res.Submission)
	id := res.ID()

	// GET, as the owner (raw, so no field is lost by decoding) and as an admin.
	code, _, body := e.raw("GET", "/api/v1/submissions/"+id, tokenOf(e.alice), nil, nil)
	raw, _ := json.Marshal(body)
	if code != 200 || strings.Contains(string(raw), hiddenAnswer) || strings.Contains(string(raw), "checker_message") {
		t.Fatalf("owner's GET = %d %s, want no checker message", code, raw)
	}
	s, err := e.alice.Submission(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	ownerSees(t, "GET", s)
	a, err := e.admin.Submission(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Cases) != 2 || !strings.Contains(a.Cases[1].CheckerMessage, hiddenAnswer) ||
		a.Cases[1].Message != "token 1 differs from the expected answer" {
		t.Fatalf("admin's GET cases = %+v, want the checker's whole message", a.Cases)
	}
	tr, err := e.admin.Trace(ctx, id)
	if err != nil || len(tr.Submission.Cases) != 2 || !strings.Contains(tr.Submission.Cases[1].CheckerMessage, hiddenAnswer) {
		t.Fatalf("admin's trace = %+v %v", tr, err)
	}

	// Server-Sent Events: the terminal event of a judged submission (the owner's own
	// stream, and an admin's), then the case events of a running one.
	for _, c := range []*client.Client{e.alice, e.admin} {
		var last *wire.Submission
		if err := c.Events(ctx, id, func(ev wire.StateEvent) error {
			if ev.Submission != nil {
				last = ev.Submission
			}
			return nil
		}); err != nil || last == nil {
			t.Fatalf("events: %v, terminal submission %v", err, last)
		}
		if c == e.alice {
			ownerSees(t, "terminal event", last)
		} else if !strings.Contains(last.Cases[1].CheckerMessage, hiddenAnswer) {
			t.Fatalf("admin's terminal event cases = %+v", last.Cases)
		}
	}
	started, release := make(chan struct{}), make(chan struct{})
	e.judge.Set(func(tk job.Task, call int) (job.Outcome, error) {
		close(started)
		<-release // both clients are subscribed by now
		return waWithCheckerMessage(tk, call)
	}, 0)
	id = e.submit(e.alice, "print(13)")
	<-started
	go func() { time.Sleep(300 * time.Millisecond); close(release) }()
	adminCases := make(chan []wire.Case, 1)
	go func() {
		var cases []wire.Case
		_ = e.admin.Events(ctx, id, func(ev wire.StateEvent) error {
			if ev.Case != nil {
				cases = append(cases, *ev.Case)
			}
			return nil
		})
		adminCases <- cases
	}()
	var cases []wire.Case
	if err := e.alice.Events(ctx, id, func(ev wire.StateEvent) error {
		if ev.Case != nil {
			cases = append(cases, *ev.Case)
		}
		if ev.Submission != nil {
			ownerSees(t, "terminal event", ev.Submission)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 || cases[1].Verdict != "WA" || cases[1].CheckerMessage != "" || cases[1].Message != "wrong answer" {
		t.Fatalf("owner's case events = %+v", cases)
	}
	if ac := <-adminCases; len(ac) != 2 || !strings.Contains(ac[1].CheckerMessage, hiddenAnswer) ||
		ac[1].Message != "token 1 differs from the expected answer" {
		t.Fatalf("admin's case events = %+v", ac)
	}
}

// ownerSees checks what the owner got: nothing of the answer, and for case 2, hidden
// (aplusb's sample is case 1), only the verdict's fixed text, not the checker's safe
// message either (it says where the output goes wrong).
func ownerSees(t *testing.T, where string, s *wire.Submission) {
	t.Helper()
	if len(s.Cases) != 2 || s.Cases[1].Verdict != "WA" || s.Cases[1].Message != "wrong answer" ||
		!s.Cases[0].Sample || s.Cases[1].Sample {
		t.Fatalf("%s: cases = %+v", where, s.Cases)
	}
	for _, c := range s.Cases {
		if c.CheckerMessage != "" || strings.Contains(c.Message, hiddenAnswer) {
			t.Fatalf("%s: the owner sees the checker's message: %+v", where, c)
		}
	}
}
