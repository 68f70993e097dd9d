package wire

import "time"

// Workers is the answer of GET /admin/v1/workers.
type Workers struct {
	Lanes  []LaneConsumers `json:"lanes"`
	Leases []LeaseSummary  `json:"leases"`
	// Workers are the workers PostgreSQL knows: the live ones, and the stopped ones an
	// operator or a quarantine set apart (their state holds when they come back).
	Workers []WorkerInfo `json:"workers"`
}

// WorkerInfo is one worker: what it announced, the state it obeys and what it holds.
type WorkerInfo struct {
	Name string `json:"name"`
	// State: active, draining, disabled or quarantined; Reason says why (an operator's
	// words, or the quarantine's errors), By who set it and At when.
	State   string     `json:"state"`
	Reason  string     `json:"reason"`
	StateBy string     `json:"state_by"`
	StateAt *time.Time `json:"state_at"`
	// Lanes maps each lane the worker reads to its slots (submissions judged at once).
	Lanes map[string]int `json:"lanes"`
	// Languages are those whose self-check passed on the worker; null: any language.
	Languages []string   `json:"languages"`
	StartedAt time.Time  `json:"started_at"`
	LastSeen  time.Time  `json:"last_seen"`
	StoppedAt *time.Time `json:"stopped_at"`
	// Live: seen within the last 35 s and not stopped.
	Live bool `json:"live"`
	// InFlight counts the submissions it holds a lease on.
	InFlight     int           `json:"in_flight"`
	RecentErrors []WorkerError `json:"recent_errors"`
}

// WorkerError is one of a worker's recent system errors.
type WorkerError struct {
	At           time.Time `json:"at"`
	SubmissionID string    `json:"submission_id"`
	Error        string    `json:"error"`
}

// WorkerActionRequest is the body of POST /admin/v1/workers/{name}/drain, /disable and
// /enable (all optional): why, for the worker's row and the audit log.
type WorkerActionRequest struct {
	Reason string `json:"reason"`
	DryRun bool   `json:"dry_run"`
}

// WorkerActionResult says whether the worker's state changed (1) or, in a dry run, would
// (WouldChange), and from which state to which.
type WorkerActionResult struct {
	DryRun      bool   `json:"dry_run"`
	Name        string `json:"name"`
	From        string `json:"from"`
	To          string `json:"to"`
	Changed     int    `json:"changed"`
	WouldChange int    `json:"would_change"`
}

// LaneConsumers lists one lane's consumers.
type LaneConsumers struct {
	Lane      string     `json:"lane"`
	Consumers []Consumer `json:"consumers"`
}

// Consumer is one consumer of a lane's group. IdleMS is the time since the consumer's last
// attempted read or claim (every Redis reports it). InactiveMS is the time since its last
// read or claim that got entries: null when Redis does not report it (before 7.2), -1 when
// the consumer never got an entry.
type Consumer struct {
	Name       string `json:"name"`
	Pending    int64  `json:"pending"`
	IdleMS     int64  `json:"idle_ms"`
	InactiveMS *int64 `json:"inactive_ms"`
}

// LeaseSummary is what one worker holds in PostgreSQL.
type LeaseSummary struct {
	Owner         string    `json:"owner"`
	Count         int       `json:"count"`
	Expired       int       `json:"expired"`
	OldestStarted time.Time `json:"oldest_started_at"`
	NextExpiry    time.Time `json:"next_expiry"`
}
