package wire

import "time"

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
