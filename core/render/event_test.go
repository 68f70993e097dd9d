package render_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"oj/core/render"
	"oj/core/store"
	"oj/core/wire"
)

// An event whose stored data does not decode is encoded as its stand-in — id, type,
// reason and time, data naming its submission and problem, render_error saying why — with
// an error wrapping ErrUnrenderable; no store is read for it.
func TestUnrenderableEventBecomesItsStandIn(t *testing.T) {
	at := time.Date(2026, 11, 28, 5, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		data string
		at   time.Time
	}{
		"a score held as the string Infinity": {`{"id":"s1","state":"finished","score":"Infinity"}`, at},
		"a number past float64":               {`{"id":"s1","state":"finished","score":1e400}`, at},
		"cases that are not a list":           {`{"id":"s1","state":"finished","cases":{"x":1}}`, at},
		"a time JSON cannot hold":             {`{"id":"s1","score":"NaN"}`, time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			e := store.FeedEvent{Cursor: store.Cursor{TxID: 7, ID: 3}, At: c.at, Type: wire.EventFinished, Reason: "finished",
				SubmissionID: "s1", ProblemID: "p", Data: json.RawMessage(c.data)}
			ev, body, err := render.EncodeFeedEvent(context.Background(), &render.Visibilities{}, nil, false, e)
			if !errors.Is(err, render.ErrUnrenderable) {
				t.Fatalf("err = %v, want ErrUnrenderable", err)
			}
			var got wire.Event
			if jerr := json.Unmarshal(body, &got); jerr != nil {
				t.Fatalf("the stand-in does not decode: %v (%s)", jerr, body)
			}
			if got.ID != "7-3" || got.Type != wire.EventFinished || got.Reason != "finished" || ev.ID != got.ID ||
				string(got.Data) != `{"id":"s1","problem_id":"p"}` || !strings.HasPrefix(got.RenderError, "the stored event could not be rendered: ") {
				t.Fatalf("stand-in %s", body)
			}
		})
	}
	// A problem version is passed through as recorded.
	e := store.FeedEvent{Cursor: store.Cursor{TxID: 7, ID: 4}, At: at, Type: wire.EventProblemVersion, Reason: "uploaded",
		ProblemID: "p", Data: json.RawMessage(`{"problem_id":"p","version":2}`)}
	if _, body, err := render.EncodeFeedEvent(context.Background(), &render.Visibilities{}, nil, false, e); err != nil ||
		!strings.Contains(string(body), `"data":{"problem_id":"p","version":2}`) || strings.Contains(string(body), "render_error") {
		t.Fatalf("problem.version: %s %v", body, err)
	}
}
