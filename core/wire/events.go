package wire

import (
	"encoding/json"
	"time"
)

// Event is one event of the results feed (GET /api/v1/events, and webhooks' body). ID is
// its cursor: resume after it with ?since=ID or Last-Event-ID. Data is the submission as
// GET returns it (without the source, with its metadata) when the change committed, or,
// for problem.version, the new version.
//
// An event whose stored data cannot be rendered (a value that does not decode, or that
// JSON cannot hold) is delivered all the same, in its place, with RenderError saying why
// and Data an EventRef naming what it was about: a follower or a webhook receiver reads
// that submission with GET /api/v1/submissions/{id}, and the events after it follow.
type Event struct {
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	Reason      string          `json:"reason"`
	Time        time.Time       `json:"time"`
	Data        json.RawMessage `json:"data"`
	RenderError string          `json:"render_error,omitempty"`
}

// EventRef is the Data of an event that could not be rendered: the submission's id (a
// submission.* event) and its problem's id, or the problem's alone (problem.version).
type EventRef struct {
	ID        string `json:"id,omitempty"`
	ProblemID string `json:"problem_id,omitempty"`
}

// Event types.
const (
	EventQueued         = "submission.queued"
	EventRunning        = "submission.running"
	EventFinished       = "submission.finished"
	EventDead           = "submission.dead"
	EventCanceled       = "submission.canceled"
	EventProblemVersion = "problem.version"
)

// EventTypes lists every event type.
var EventTypes = []string{EventQueued, EventRunning, EventFinished, EventDead, EventCanceled, EventProblemVersion}

// ProblemVersionEvent is the data of a problem.version event.
type ProblemVersionEvent struct {
	ProblemID     string    `json:"problem_id"`
	Version       int       `json:"version"`
	SHA256        string    `json:"sha256"`
	Title         string    `json:"title"`
	TimeLimitMS   int       `json:"time_limit_ms"`
	MemoryLimitMB int       `json:"memory_limit_mb"`
	CaseCount     int       `json:"case_count"`
	CreatedAt     time.Time `json:"created_at"`
}
