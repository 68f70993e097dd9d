package wire

import "time"

// The shapes of the admin endpoints (/admin/v1/…), which ojctl and the TUI drive.

// PendingEntry is one entry of a lane's pending entries list.
type PendingEntry struct {
	Lane         string `json:"lane"`
	StreamID     string `json:"stream_id"`
	SubmissionID string `json:"submission_id"`
	Consumer     string `json:"consumer"`
	IdleMS       int64  `json:"idle_ms"`
	Deliveries   int64  `json:"deliveries"`
	Deleted      bool   `json:"deleted"`
}

// PEL is the answer of GET /admin/v1/pel.
type PEL struct {
	Entries []PendingEntry `json:"entries"`
}

// ReclaimRequest is the body of POST /admin/v1/reclaim. An empty lane means every lane;
// MinIdleMS defaults to 60000; Limit bounds the entries examined (default 1000).
type ReclaimRequest struct {
	Lane      string `json:"lane"`
	MinIdleMS *int64 `json:"min_idle_ms,omitempty"`
	Limit     int    `json:"limit,omitempty"`
	DryRun    bool   `json:"dry_run"`
}

// ReclaimResult counts what reclaim did with each idle pending entry: PostgreSQL decided
// every one. In a dry run nothing is reclaimed: Reclaimed is 0 and WouldReclaim says how
// many would be; the other counts then classify the entries examined (what a real run
// would leave, acknowledge or drop) and nothing is acknowledged or dropped.
type ReclaimResult struct {
	DryRun        bool `json:"dry_run"`
	Examined      int  `json:"examined"`
	Reclaimed     int  `json:"reclaimed"`
	WouldReclaim  int  `json:"would_reclaim"`
	StillLeased   int  `json:"still_leased"`
	TerminalAcked int  `json:"terminal_acked"`
	Missing       int  `json:"missing"`
	// Dropped counts malformed entries (no usable submission id), acked and deleted.
	Dropped int `json:"dropped"`
}

// OutboxRow is an undelivered outbox row.
type OutboxRow struct {
	ID           int64     `json:"id"`
	Kind         string    `json:"kind"`
	Lane         string    `json:"lane"`
	SubmissionID string    `json:"submission_id"`
	CreatedAt    time.Time `json:"created_at"`
	NextTry      time.Time `json:"next_try"`
	Attempts     int       `json:"attempts"`
	LastError    string    `json:"last_error"`
}

// Outbox is the answer of GET /admin/v1/outbox.
type Outbox struct {
	Backlog     int64       `json:"backlog"`
	OldestAgeMS int64       `json:"oldest_age_ms"`
	Rows        []OutboxRow `json:"rows"`
}

// DeadLetter is a submission that failed for good.
type DeadLetter struct {
	SubmissionID string    `json:"submission_id"`
	Lane         string    `json:"lane"`
	Attempts     int       `json:"attempts"`
	LastError    string    `json:"last_error"`
	DeadSince    time.Time `json:"dead_since"`
}

// DLQ is a page of dead letters, oldest first; NextCursor is empty on the last page.
type DLQ struct {
	Items      []DeadLetter `json:"items"`
	NextCursor string       `json:"next_cursor"`
	Total      int64        `json:"total"`
}

// SubmissionSummary is a submission in a list: no source, no compile output, no cases
// (GET /api/v1/submissions/{id} has them). Verdict, score, time and memory are null
// until the submission has a verdict.
type SubmissionSummary struct {
	ID         string     `json:"id"`
	ProblemID  string     `json:"problem_id"`
	Language   string     `json:"language"`
	State      string     `json:"state"`
	Verdict    *string    `json:"verdict"`
	Score      *float64   `json:"score"`
	Attempt    int        `json:"attempt"`
	TimeMS     *int       `json:"time_ms"`
	MemoryKB   *int       `json:"memory_kb"`
	CreatedAt  time.Time  `json:"created_at"`
	FinishedAt *time.Time `json:"finished_at"`
	// Owner is the name of the token that made it ("" for a submission without one).
	Owner    string            `json:"owner"`
	Metadata map[string]string `json:"metadata"`
	// Purpose is "user", or "verify" for a submission a problem's verification made
	// from its package's labeled sources (listed only with ?purpose=verify or all).
	Purpose string `json:"purpose"`
}

// SubmissionList is a page of GET /admin/v1/submissions (or GET /api/v1/submissions),
// newest first; NextCursor is empty on the last page.
type SubmissionList struct {
	Items      []SubmissionSummary `json:"items"`
	NextCursor string              `json:"next_cursor"`
}

// ListSubmissionsQuery is the query of GET /admin/v1/submissions (and of a token's own
// list, GET /api/v1/submissions, which takes no Owner): empty fields match everything,
// Limit 0 is the server's default (50; at most 500), Cursor is the previous page's
// NextCursor, Metadata keeps submissions carrying every one of its tags (meta.KEY=VALUE).
type ListSubmissionsQuery struct {
	State     string
	ProblemID string
	Owner     string
	Metadata  map[string]string
	// Purpose is user (the server's default), verify or all.
	Purpose string
	Limit   int
	Cursor  string
}

// ReplayRequest is the body of POST /admin/v1/dlq/replay: ids, or all.
type ReplayRequest struct {
	IDs    []string `json:"ids,omitempty"`
	All    bool     `json:"all,omitempty"`
	DryRun bool     `json:"dry_run"`
}

// ReplayResult counts the replayed dead letters. In a dry run nothing is replayed:
// Replayed is 0 and WouldReplay says how many would be.
type ReplayResult struct {
	DryRun      bool `json:"dry_run"`
	Requested   int  `json:"requested"`
	Replayed    int  `json:"replayed"`
	WouldReplay int  `json:"would_replay"`
}

// PurgeRequest is the body of POST /admin/v1/dlq/purge: ids, or all.
type PurgeRequest struct {
	IDs    []string `json:"ids,omitempty"`
	All    bool     `json:"all,omitempty"`
	DryRun bool     `json:"dry_run"`
}

// PurgeResult counts the dead letters removed. In a dry run nothing is removed: Purged is
// 0 and WouldPurge says how many would be. The submissions stay dead with their verdict.
type PurgeResult struct {
	DryRun     bool `json:"dry_run"`
	Requested  int  `json:"requested"`
	Purged     int  `json:"purged"`
	WouldPurge int  `json:"would_purge"`
}

// TrimRequest is the body of POST /admin/v1/trim. An empty lane trims every lane.
type TrimRequest struct {
	Lane     string `json:"lane"`
	Strategy string `json:"strategy"`
	MaxLen   *int64 `json:"maxlen,omitempty"`
	DryRun   bool   `json:"dry_run"`
}

// TrimResult reports a trim: lengths before and after, summed over the lanes trimmed, and
// the entries removed. In a dry run nothing is trimmed: Removed is 0, WouldRemove says how
// many would be, and LengthAfter is the length the trim would leave.
type TrimResult struct {
	DryRun       bool       `json:"dry_run"`
	Strategy     string     `json:"strategy"`
	LengthBefore int64      `json:"length_before"`
	LengthAfter  int64      `json:"length_after"`
	Removed      int64      `json:"removed"`
	WouldRemove  int64      `json:"would_remove"`
	Lanes        []LaneTrim `json:"lanes"`
}

// LaneTrim is one lane's part of a trim.
type LaneTrim struct {
	Lane         string `json:"lane"`
	LengthBefore int64  `json:"length_before"`
	LengthAfter  int64  `json:"length_after"`
	MinID        string `json:"min_id,omitempty"`
}

// ActionRequest is the optional body of rejudge and cancel.
type ActionRequest struct {
	DryRun bool `json:"dry_run"`
}

// RejudgeResult counts the submissions sent to the rejudge lane. In a dry run none is:
// Rejudged is 0 and WouldRejudge says how many would be.
type RejudgeResult struct {
	DryRun       bool `json:"dry_run"`
	Rejudged     int  `json:"rejudged"`
	WouldRejudge int  `json:"would_rejudge"`
	Requested    int  `json:"requested"`
}

// CancelResult says whether the submission was canceled (1) or not (0). In a dry run
// nothing is canceled: Canceled is 0 and WouldCancel says whether it would be.
type CancelResult struct {
	DryRun      bool `json:"dry_run"`
	Canceled    int  `json:"canceled"`
	WouldCancel int  `json:"would_cancel"`
}

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

// AuditEntry is one audited admin action.
type AuditEntry struct {
	ID     int64          `json:"id"`
	At     time.Time      `json:"at"`
	Actor  string         `json:"actor"`
	Action string         `json:"action"`
	DryRun bool           `json:"dry_run"`
	Params map[string]any `json:"params"`
	Counts map[string]any `json:"counts"`
}

// countTwins pairs each action's done count with the count of what a dry run would have
// done, as the answers and the audit rows name them.
var countTwins = [][2]string{{"reclaimed", "would_reclaim"}, {"replayed", "would_replay"}, {"purged", "would_purge"},
	{"rejudged", "would_rejudge"}, {"canceled", "would_cancel"}, {"removed", "would_remove"}, {"changed", "would_change"}}

// ShownCounts are the counts of the entry worth a table cell: the twin that is 0 by
// construction is left out (a real run's would_* count, a dry run's done count) and so
// is a trim's per-lane detail, which its sums already give. Rows written before the
// would_* counts existed keep the done count of their dry runs. The entry's Counts keep
// everything.
func (e AuditEntry) ShownCounts() map[string]any {
	out := make(map[string]any, len(e.Counts))
	for k, v := range e.Counts {
		out[k] = v
	}
	delete(out, "lanes")
	for _, t := range countTwins {
		done, would := t[0], t[1]
		if _, ok := out[would]; !ok {
			continue
		}
		if e.DryRun {
			delete(out, done)
		} else {
			delete(out, would)
		}
	}
	return out
}

// Audit is the answer of GET /admin/v1/audit, newest first.
type Audit struct {
	Entries []AuditEntry `json:"entries"`
}
