package wire

import "time"

// The shapes of GET /admin/v1/overview.

// Overview is the answer of GET /admin/v1/overview.
type Overview struct {
	Lanes           []LaneOverview `json:"lanes"`
	Outbox          OutboxStats    `json:"outbox"`
	DeadLetters     int64          `json:"dead_letters"`
	DeadEstimated   bool           `json:"dead_letters_estimated"`
	DLQStreamLength int64          `json:"dlq_stream_length"`
	Submissions     []StateCount   `json:"submissions"`
	// Runs counts the runs (the Run button's, kept for runs.retention) by state, exactly;
	// they are not in Submissions.
	Runs []StateCount `json:"runs"`
	// RunOrigins counts the runs by the face they came through ("api", "judge0").
	RunOrigins []OriginCount `json:"run_origins"`
	// RunCallbacks is the backlog of run callbacks (a run's result PUT to its caller's
	// URL when it ends).
	RunCallbacks RunCallbackStats `json:"run_callbacks"`
	RedisVersion string           `json:"redis_version"`
	At           time.Time        `json:"at"`
	// NoWorker lists, per lane and language, the submissions held back because no live
	// active worker runs their language.
	NoWorker []LanguageWaiting `json:"waiting_for_worker"`
	// Languages lists every configured language with its live workers by state, each
	// with a problem when no live active worker runs it.
	Languages []LanguageWorkers `json:"language_workers"`
}

// OriginCount is how many runs came through one face.
type OriginCount struct {
	Origin string `json:"origin"`
	Count  int64  `json:"count"`
}

// RunCallbackStats is the run callbacks not delivered: pending (tried on the webhooks'
// schedule; OldestPendingMS the age of the oldest) and failed (given up, kept for
// webhooks.retention).
type RunCallbackStats struct {
	Pending         int64 `json:"pending"`
	Failed          int64 `json:"failed"`
	OldestPendingMS int64 `json:"oldest_pending_ms"`
}

// LanguageWaiting is a lane's submissions in one language that wait for a worker.
type LanguageWaiting struct {
	Lane         string `json:"lane"`
	Language     string `json:"language"`
	Waiting      int64  `json:"waiting"`
	OldestWaitMS int64  `json:"oldest_wait_ms"`
	// Reason: "queued: no live worker runs LANGUAGE".
	Reason string `json:"reason"`
}

// LaneOverview is one lane's stream and group.
type LaneOverview struct {
	Lane              string `json:"lane"`
	Length            int64  `json:"length"`
	Pending           int64  `json:"pending"`
	OldestPendingIdle int64  `json:"oldest_pending_idle_ms"`
	OldestPendingID   string `json:"oldest_pending_id,omitempty"`
	// Lag is Redis's own figure (XINFO GROUPS) for the entries not yet delivered, -1 when
	// Redis says it cannot tell. A failover, an XGROUP SETID or deletions can leave it
	// wrong: Undelivered is the count oj uses.
	Lag int64 `json:"lag"`
	// Undelivered is the entries that follow the group's last-delivered id, counted
	// (XRANGE) up to 1000; UndeliveredCapped means the count stopped there (at least).
	Undelivered       int64  `json:"undelivered"`
	UndeliveredCapped bool   `json:"undelivered_capped,omitempty"`
	LastDeliveredID   string `json:"last_delivered_id,omitempty"`
	Consumers         int64  `json:"consumers"`
	GroupExists       bool   `json:"group_exists"`
	// Waiting counts the lane's committed submissions still in the outbox, waiting for
	// their turn (fair release puts them in the stream as workers free up);
	// OldestWaitMS is how long the oldest of them has waited.
	Waiting      int64 `json:"waiting"`
	OldestWaitMS int64 `json:"oldest_wait_ms"`
}

// OutboxStats is the outbox backlog.
type OutboxStats struct {
	Backlog     int64 `json:"backlog"`
	OldestAgeMS int64 `json:"oldest_age_ms"`
}

// StateCount is the number of submissions in one state.
type StateCount struct {
	State     string `json:"state"`
	Count     int64  `json:"count"`
	Estimated bool   `json:"estimated"`
}
