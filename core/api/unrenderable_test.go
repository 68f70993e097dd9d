package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"oj/core/api/client"
	"oj/core/wire"
)

// poisonFinishedEvent writes, straight into the events table, a copy of id's finished
// event whose score is the string "Infinity": what the trigger recorded for a +Inf score
// before scores were bounded.
func (e *env) poisonFinishedEvent(id string) {
	e.t.Helper()
	if _, err := e.db.Exec(context.Background(), `INSERT INTO events (type, reason, submission_id, problem_id, data)
		SELECT type, reason, submission_id, problem_id, jsonb_set(data, '{score}', '"Infinity"')
		  FROM events WHERE submission_id = $1 AND type = 'submission.finished'`, id); err != nil {
		e.t.Fatal(err)
	}
}

// metric reads one sample of the API's /metrics.
func (e *env) metric(line string) bool {
	e.t.Helper()
	resp, err := http.Get(e.http.URL + "/metrics")
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return strings.Contains(string(b), line)
}

// A feed event whose stored data cannot be rendered (a legacy row holding "Infinity")
// is delivered as its stand-in — its id, type and submission, and why — and the feed goes
// on past it, in NDJSON and in Server-Sent Events; it is counted.
func TestFeedGoesOnPastAnUnrenderableEvent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	poisoned := e.submit(e.alice, "print(1)")
	e.waitTerminal(poisoned, 20*time.Second)
	e.poisonFinishedEvent(poisoned)
	after := e.submit(e.alice, "print(2)")
	e.waitTerminal(after, 20*time.Second)

	var standIn *wire.Event
	reachedAfter := false
	e.waitFor(20*time.Second, func() bool {
		standIn, reachedAfter = nil, false
		_, err := e.admin.Feed(context.Background(), client.FeedQuery{}, func(ev wire.Event) error {
			if ev.RenderError != "" {
				standIn = &ev
			}
			var d struct{ ID, State string }
			_ = json.Unmarshal(ev.Data, &d)
			if standIn != nil && d.ID == after && ev.Type == wire.EventFinished {
				reachedAfter = true
			}
			return nil
		})
		if err != nil {
			t.Fatalf("the feed ended with %v", err)
		}
		return reachedAfter
	})
	var ref wire.EventRef
	if err := json.Unmarshal(standIn.Data, &ref); err != nil || ref.ID != poisoned || ref.ProblemID != "aplusb" ||
		standIn.Type != wire.EventFinished || !strings.Contains(standIn.RenderError, "could not be rendered") {
		t.Fatalf("stand-in %+v (data %s)", standIn, standIn.Data)
	}

	req, _ := http.NewRequest("GET", e.http.URL+"/api/v1/events?follow=false", nil)
	req.Header.Set("Authorization", "Bearer "+tokenOf(e.admin))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	sse := string(body)
	i, j := strings.Index(sse, `"render_error"`), strings.LastIndex(sse, `"id":"`+after+`"`)
	if i < 0 || j < i || !strings.Contains(sse[j:], `"state":"finished"`) {
		t.Fatalf("SSE feed without the stand-in followed by the later submission:\n%s", sse)
	}
	if !e.metric(`oj_api_unrenderable_total{where="feed"}`) || e.metric(`oj_api_unrenderable_total{where="feed"} 0`) {
		t.Fatal("the stand-ins were not counted")
	}
}

// A submission row holding a value JSON cannot hold (a legacy +Inf score) is answered
// 500 with the error shape, never 200 with an empty body, by GET and by its owner's list;
// its event stream says the state and that the submission could not be rendered.
func TestAnswerThatCannotBeEncodedIs500(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	id := e.submit(e.alice, "print(1)")
	e.waitTerminal(id, 20*time.Second)
	if _, err := e.db.Exec(context.Background(), `UPDATE submissions SET score = 'Infinity' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/api/v1/submissions/" + id, "/api/v1/submissions"} {
		code, h, body := e.raw("GET", path, tokenOf(e.alice), nil, nil)
		errBody, _ := body["error"].(map[string]any)
		if code != http.StatusInternalServerError || h.Get("Content-Type") != "application/json" ||
			errBody["code"] != "internal" || errBody["message"] == "" {
			t.Fatalf("GET %s: %d %v", path, code, body)
		}
	}
	var got []wire.StateEvent
	if err := e.alice.Events(context.Background(), id, func(ev wire.StateEvent) error {
		got = append(got, ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].State != "finished" || got[0].Submission != nil || !strings.Contains(got[0].RenderError, "could not be rendered") {
		t.Fatalf("events %+v", got)
	}
	if !e.metric(`oj_api_unrenderable_total{where="answer"} 2`) || !e.metric(`oj_api_unrenderable_total{where="events"} 1`) {
		t.Fatal("the failures were not counted")
	}
}
