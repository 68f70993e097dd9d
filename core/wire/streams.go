package wire

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
