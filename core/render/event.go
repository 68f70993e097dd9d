package render

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"oj/core/job"
	"oj/core/store"
	"oj/core/wire"
)

// ErrUnrenderable marks a stored event that cannot be rendered: its data does not decode
// (a row written before scores were bounded holds "Infinity" where a number belongs), or
// the rendered event cannot be encoded. Retrying cannot change it, so the event is
// delivered as its stand-in (Unrenderable) rather than stop the feed or a webhook page.
var ErrUnrenderable = errors.New("event cannot be rendered")

// FeedEvent renders a stored event for a viewer (an admin or not): a submission as GET
// shows it to that viewer (its cases as the viewer may see them), a problem version as it
// was recorded. The feed renders each event for the token that follows it; a webhook's
// payload is the event as a reader token sees it. An event that cannot be rendered is
// returned as its stand-in with an error wrapping ErrUnrenderable (deliver the stand-in;
// log and count the error); any other error is the store's, worth trying again.
func FeedEvent(ctx context.Context, vis *Visibilities, db store.DB, admin bool, e store.FeedEvent) (wire.Event, error) {
	out := wire.Event{ID: e.Cursor.String(), Type: e.Type, Reason: e.Reason, Time: e.At}
	if e.Type == wire.EventProblemVersion {
		out.Data = e.Data
		return out, nil
	}
	sub, err := submissionOfEvent(e.Data)
	if err != nil {
		return unrenderable(e, err)
	}
	view, err := vis.View(ctx, db, admin, sub)
	if err != nil {
		return out, err
	}
	b, err := json.Marshal(Submission(sub, admin, view))
	if err != nil {
		return unrenderable(e, err)
	}
	out.Data = b
	return out, nil
}

// EncodeFeedEvent is FeedEvent encoded: one line of the feed, one webhook body. An event
// that cannot be rendered or encoded is encoded as its stand-in, with an error wrapping
// ErrUnrenderable; any other error is the store's.
func EncodeFeedEvent(ctx context.Context, vis *Visibilities, db store.DB, admin bool, e store.FeedEvent) (wire.Event, []byte, error) {
	ev, err := FeedEvent(ctx, vis, db, admin, e)
	if err != nil && !errors.Is(err, ErrUnrenderable) {
		return ev, nil, err
	}
	b, merr := json.Marshal(ev)
	if merr == nil {
		return ev, b, err
	}
	ev, err = unrenderable(e, merr)
	return ev, encodeStandIn(&ev), err
}

// Unrenderable is the stand-in delivered for stored event e, which could not be rendered
// because of cause: its id, type, reason and time, Data naming its submission and problem
// (wire.EventRef), RenderError saying why.
func Unrenderable(e store.FeedEvent, cause error) wire.Event {
	ref, _ := json.Marshal(wire.EventRef{ID: e.SubmissionID, ProblemID: e.ProblemID})
	why := "the stored event could not be rendered: " + cause.Error()
	if len(why) > maxRenderError {
		why = strings.ToValidUTF8(why[:maxRenderError], "") + "…"
	}
	return wire.Event{ID: e.Cursor.String(), Type: e.Type, Reason: e.Reason, Time: e.At, Data: ref, RenderError: why}
}

// maxRenderError bounds a stand-in's RenderError.
const maxRenderError = 300

func unrenderable(e store.FeedEvent, cause error) (wire.Event, error) {
	return Unrenderable(e, cause), fmt.Errorf("event %s (%s of %s): %w: %w", e.Cursor, e.Type, e.SubmissionID, ErrUnrenderable, cause)
}

// encodeStandIn encodes a stand-in, which holds only text and its time: a time JSON
// cannot hold (a year past 9999) is dropped so that the stand-in always encodes.
func encodeStandIn(ev *wire.Event) []byte {
	b, err := json.Marshal(ev)
	if err != nil {
		ev.Time = time.Time{}
		b, _ = json.Marshal(ev)
	}
	return b
}

// eventSubmission is the submission a trigger recorded (00006_integration.sql).
type eventSubmission struct {
	ID             string            `json:"id"`
	OwnerID        *int64            `json:"owner_id"`
	ProblemID      string            `json:"problem_id"`
	ProblemVersion int               `json:"problem_version"`
	Language       string            `json:"language"`
	State          string            `json:"state"`
	Verdict        *string           `json:"verdict"`
	Score          *float64          `json:"score"`
	TimeMS         *int              `json:"time_ms"`
	MemoryKB       *int              `json:"memory_kb"`
	Attempt        int               `json:"attempt"`
	CompileOutput  string            `json:"compile_output"`
	LastError      string            `json:"last_error"`
	Cases          json.RawMessage   `json:"cases"`
	Metadata       map[string]string `json:"metadata"`
	Purpose        string            `json:"purpose"`
	CreatedAt      time.Time         `json:"created_at"`
	FinishedAt     *time.Time        `json:"finished_at"`
}

// submissionOfEvent is an event's submission in the store's shape, for Submission.
func submissionOfEvent(data []byte) (*store.Submission, error) {
	var es eventSubmission
	if err := json.Unmarshal(data, &es); err != nil {
		return nil, err
	}
	sub := &store.Submission{ID: es.ID, OwnerID: es.OwnerID, ProblemID: es.ProblemID, ProblemVersion: es.ProblemVersion,
		Language: es.Language, State: job.State(es.State), Attempt: es.Attempt, CompileOutput: es.CompileOutput,
		LastError: es.LastError, Metadata: es.Metadata, Purpose: es.Purpose, CreatedAt: es.CreatedAt, FinishedAt: es.FinishedAt}
	if es.Verdict != nil {
		sub.Verdict = job.Verdict(*es.Verdict)
	}
	if es.Score != nil {
		sub.Score = *es.Score
	}
	if es.TimeMS != nil {
		sub.TimeMS = *es.TimeMS
	}
	if es.MemoryKB != nil {
		sub.MemoryKB = *es.MemoryKB
	}
	if len(es.Cases) > 0 {
		cases, err := store.DecodeCases(es.Cases)
		if err != nil {
			return nil, err
		}
		sub.Cases = cases
	}
	return sub, nil
}
