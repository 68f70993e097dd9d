package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/wire"
)

func TestEventsStreamStatesUntilTerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.judge.Set(acceptAll, 300*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	id := e.submit(e.alice, "print(1)")
	var states []string
	var last wire.StateEvent
	if err := e.alice.Events(ctx, id, func(ev wire.StateEvent) error {
		states = append(states, ev.State)
		last = ev
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(states) < 2 || states[len(states)-1] != "finished" || states[0] == "finished" {
		t.Fatalf("states = %v, want the current state first and finished last", states)
	}
	if last.Submission == nil || last.Submission.Verdict == nil || *last.Submission.Verdict != "AC" || last.ID != id {
		t.Fatalf("terminal event = %+v", last)
	}
	// A late client gets the current (terminal) state at once, and the stream closes.
	states = nil
	if err := e.alice.Events(ctx, id, func(ev wire.StateEvent) error { states = append(states, ev.State); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(states) != 1 || states[0] != "finished" {
		t.Fatalf("late client states = %v, want [finished]", states)
	}
}

// Cases judged by the running attempt arrive as `case` events before the verdict.
func TestEventsStreamCasesAsTheyAreJudged(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	started := make(chan struct{})
	release := make(chan struct{})
	e.judge.Set(func(tk job.Task, _ int) (job.Outcome, error) {
		close(started)
		<-release // the client is subscribed by now
		out := job.Outcome{Verdict: job.VerdictWA, Score: 50}
		for i := 1; i <= 3; i++ {
			c := job.CaseResult{Index: i, Verdict: job.VerdictAC, TimeMS: i, MemoryKB: 100}
			if i == 3 {
				c.Verdict, c.Message = job.VerdictWA, "expected 3, found 4"
			}
			out.Cases = append(out.Cases, c)
		}
		return out, nil
	}, 0)
	// The scripted judge reports its cases through the worker as a real judge does.
	e.judge.SetProgress(true)
	id := e.submit(e.alice, "print(1)")
	<-started
	var cases []wire.Case
	var states []string
	go func() { time.Sleep(300 * time.Millisecond); close(release) }()
	if err := e.alice.Events(ctx, id, func(ev wire.StateEvent) error {
		if ev.Case != nil {
			if ev.State != "running" || ev.Attempt != 1 {
				t.Errorf("case event %+v", ev)
			}
			cases = append(cases, *ev.Case)
			return nil
		}
		if ev.State == "finished" && len(cases) != 3 {
			t.Errorf("verdict before the cases: %d cases seen", len(cases))
		}
		states = append(states, ev.State)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// Case 3 is hidden from its owner: the verdict's text, not the judge's message.
	if len(cases) != 3 || cases[2].Verdict != "WA" || cases[2].Message != "wrong answer" || cases[0].Index != 1 {
		t.Fatalf("case events = %+v", cases)
	}
	if states[len(states)-1] != "finished" {
		t.Fatalf("states = %v", states)
	}
}

func TestEventsHeartbeatKeepsTheStreamOpen(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true})
	id := e.submit(e.alice, "print(1)")
	req, _ := http.NewRequest("GET", e.http.URL+"/api/v1/submissions/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+tokenOf(e.alice))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	buf := make([]byte, 0, 4096)
	tmp := make([]byte, 512)
	for !strings.Contains(string(buf), ": keep-alive") {
		n, err := resp.Body.Read(tmp)
		if err != nil {
			t.Fatalf("stream ended before a heartbeat: %v (%q)", err, buf)
		}
		buf = append(buf, tmp[:n]...)
	}
	if !strings.HasPrefix(string(buf), "event: state\n") || !strings.Contains(string(buf), `"state":"queued"`) {
		t.Fatalf("stream = %q, want the current state first", buf)
	}
	// Cancel (admin) ends the stream with a terminal event.
	go func() { _, _ = e.admin.Cancel(context.Background(), id, false) }()
	rest := make([]byte, 0, 4096)
	for {
		n, err := resp.Body.Read(tmp)
		rest = append(rest, tmp[:n]...)
		if err != nil {
			break
		}
	}
	if !strings.Contains(string(rest), `"state":"canceled"`) {
		t.Fatalf("after cancel the stream said %q", rest)
	}
}
