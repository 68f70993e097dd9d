package render

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"oj/core/api/wire"
	"oj/core/job"
	"oj/core/store"
)

// FeedEvent renders a stored event for a viewer (an admin or not): a submission as GET
// shows it to that viewer (its cases as the viewer may see them), a problem version as it
// was recorded. The feed renders each event for the token that follows it; a webhook's
// payload is the event as a reader token sees it.
func FeedEvent(ctx context.Context, vis *Visibilities, db store.DB, admin bool, e store.FeedEvent) (wire.Event, error) {
	out := wire.Event{ID: e.Cursor.String(), Type: e.Type, Reason: e.Reason, Time: e.At}
	if e.Type == wire.EventProblemVersion {
		out.Data = e.Data
		return out, nil
	}
	sub, err := submissionOfEvent(e.Data)
	if err != nil {
		return out, fmt.Errorf("feed event %s: %w", out.ID, err)
	}
	view, err := vis.View(ctx, db, admin, sub)
	if err != nil {
		return out, err
	}
	b, err := json.Marshal(Submission(sub, admin, view))
	if err != nil {
		return out, err
	}
	out.Data = b
	return out, nil
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
