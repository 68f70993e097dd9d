package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"oj/core/job"
)

// WorkerState is what an operator, or the worker itself, decided about a worker: whether
// it claims submissions.
type WorkerState string

// Worker states (00009_workers.sql). Only an active worker claims; a draining one
// finishes what it holds; a disabled one gives back what it holds; a quarantined one
// (its last attempts all ended in system errors) claims nothing until enabled.
const (
	WorkerActive      WorkerState = "active"
	WorkerDraining    WorkerState = "draining"
	WorkerDisabled    WorkerState = "disabled"
	WorkerQuarantined WorkerState = "quarantined"
)

// WorkerStates lists the states, in the order the metrics and the docs give them.
var WorkerStates = []WorkerState{WorkerActive, WorkerDraining, WorkerDisabled, WorkerQuarantined}

// Claims reports whether a worker in state s may claim submissions.
func (s WorkerState) Claims() bool { return s == WorkerActive || s == "" }

// WorkerLiveWithin is how recently a worker must have announced itself to count as live:
// a few announcements (every 10 s), so one missed beat does not drop it.
const WorkerLiveWithin = 35 * time.Second

// Announcement is what a worker says of itself with every announcement.
type Announcement struct {
	// Lanes maps each lane the worker reads to how many submissions of it it judges at once.
	Lanes map[string]int
	// Languages lists the languages whose self-check passed; nil: any language.
	Languages []string
	// LanguageNames are their names with the versions the self-check detected (id → name).
	LanguageNames map[string]string
	// RecentErrors are its last system errors, newest first.
	RecentErrors []WorkerError
}

// WorkerError is one system error a worker met, as its row keeps it.
type WorkerError struct {
	At           time.Time `json:"at"`
	SubmissionID string    `json:"submission_id"`
	Error        string    `json:"error"`
}

// AnnounceWorker records that worker name is alive, what it runs and what it holds, and
// returns its state: a worker announces itself at start and every few seconds, and the
// dispatcher sizes each lane's release window, and picks the rows it releases, from the
// live active ones. The state is never changed by an announcement: a worker restarting
// under the name of a disabled one stays disabled.
func AnnounceWorker(ctx context.Context, db DB, name string, a Announcement) (WorkerState, string, error) {
	lanes, err := json.Marshal(a.Lanes)
	if err != nil {
		return "", "", fmt.Errorf("announce worker: %w", err)
	}
	recent, err := recentJSON(a.RecentErrors)
	if err != nil {
		return "", "", fmt.Errorf("announce worker: %w", err)
	}
	names, err := json.Marshal(a.LanguageNames)
	if err != nil || a.LanguageNames == nil {
		names = []byte("{}")
	}
	var langs []string
	if a.Languages != nil {
		langs = slices.Sorted(slices.Values(a.Languages))
	}
	var st WorkerState
	var reason string
	err = db.QueryRow(ctx, `INSERT INTO workers (name, lanes, languages, recent_errors, language_names)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (name) DO UPDATE SET lanes = excluded.lanes, languages = excluded.languages,
		       language_names = excluded.language_names,
		       recent_errors = excluded.recent_errors, last_seen = now(), stopped_at = NULL,
		       started_at = CASE WHEN workers.stopped_at IS NOT NULL THEN now() ELSE workers.started_at END
		RETURNING state, state_reason`, Text(name), lanes, langs, recent, names).Scan(&st, &reason)
	if err != nil {
		return "", "", fmt.Errorf("announce worker: %w", err)
	}
	return st, reason, nil
}

// recentJSON is the recent_errors column of errs, each error clipped.
func recentJSON(errs []WorkerError) ([]byte, error) {
	out := make([]WorkerError, len(errs))
	for i, e := range errs {
		e.Error = Text(clip(e.Error, 500))
		out[i] = e
	}
	return json.Marshal(out)
}

// WorkerStateOf reads worker name's state and its reason; ErrNotFound without a row.
func WorkerStateOf(ctx context.Context, db DB, name string) (WorkerState, string, error) {
	var st WorkerState
	var reason string
	err := db.QueryRow(ctx, `SELECT state, state_reason FROM workers WHERE name = $1`, Text(name)).Scan(&st, &reason)
	if err != nil {
		return "", "", translate(err, "worker state")
	}
	return st, reason, nil
}

// WorkerGone records that a worker stopped: an active worker's row is removed (its slots
// leave the windows at once); the row of one an operator or a quarantine set apart is
// kept, marked stopped, so its state holds when it comes back.
func WorkerGone(ctx context.Context, db DB, name string) error {
	_, err := db.Exec(ctx, `WITH gone AS (DELETE FROM workers WHERE name = $1 AND state = 'active')
		UPDATE workers SET stopped_at = now() WHERE name = $1 AND state <> 'active'`, Text(name))
	if err != nil {
		return fmt.Errorf("worker gone: %w", err)
	}
	return nil
}

// SetWorkerState sets worker name's state with the reason and who decided it. An
// operator's change (by set) may not move a worker the way it already is; ErrNotFound
// when there is no such worker, ErrConflict when it is already in state.
func SetWorkerState(ctx context.Context, db DB, name string, state WorkerState, reason, by string, now time.Time) (WorkerState, error) {
	var prev WorkerState
	err := db.QueryRow(ctx, `SELECT state FROM workers WHERE name = $1 FOR UPDATE`, Text(name)).Scan(&prev)
	if err != nil {
		return "", translate(err, "set worker state")
	}
	if prev == state {
		return prev, fmt.Errorf("set worker state: worker %s is already %s: %w", name, state, ErrConflict)
	}
	_, err = db.Exec(ctx, `UPDATE workers SET state = $2, state_reason = $3, state_by = $4, state_at = $5 WHERE name = $1`,
		Text(name), string(state), Text(clip(reason, 2000)), Text(by), now)
	if err != nil {
		return "", fmt.Errorf("set worker state: %w", err)
	}
	return prev, nil
}

// Quarantine sets worker name quarantined with the reason and the errors that led to it,
// unless an operator already set it apart (draining or disabled stay as they are). It
// reports whether the state changed.
func Quarantine(ctx context.Context, db DB, name, reason string, errs []WorkerError, now time.Time) (bool, error) {
	recent, err := recentJSON(errs)
	if err != nil {
		return false, fmt.Errorf("quarantine worker: %w", err)
	}
	tag, err := db.Exec(ctx, `UPDATE workers SET state = 'quarantined', state_reason = $2, state_by = $1, state_at = $3,
		       recent_errors = $4
		WHERE name = $1 AND state = 'active'`, Text(name), Text(clip(reason, 2000)), now, recent)
	if err != nil {
		return false, fmt.Errorf("quarantine worker: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// LiftQuarantine sets worker name active again after its self-check passed, only if it
// is still quarantined by itself: an operator's drain, disable or enable since stands.
// It reports whether the state changed.
func LiftQuarantine(ctx context.Context, db DB, name, reason string, now time.Time) (bool, error) {
	tag, err := db.Exec(ctx, `UPDATE workers SET state = 'active', state_reason = $2, state_by = $1, state_at = $3
		WHERE name = $1 AND state = 'quarantined' AND state_by = $1`, Text(name), Text(clip(reason, 2000)), now)
	if err != nil {
		return false, fmt.Errorf("lift quarantine: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// WorkerRow is one worker as the admin API lists it.
type WorkerRow struct {
	Name         string
	Lanes        map[string]int
	Languages    []string // nil: any language
	State        WorkerState
	StateReason  string
	StateBy      string
	StateAt      *time.Time
	StartedAt    time.Time
	LastSeen     time.Time
	StoppedAt    *time.Time
	RecentErrors []WorkerError
}

// ListWorkers returns every worker row, by name.
func ListWorkers(ctx context.Context, db DB) ([]WorkerRow, error) {
	scan := func(rows pgx.Row, w *WorkerRow) error {
		var lanes, recent []byte
		if err := rows.Scan(&w.Name, &lanes, &w.Languages, &w.State, &w.StateReason, &w.StateBy, &w.StateAt,
			&w.StartedAt, &w.LastSeen, &w.StoppedAt, &recent); err != nil {
			return err
		}
		if err := json.Unmarshal(lanes, &w.Lanes); err != nil {
			return err
		}
		return json.Unmarshal(recent, &w.RecentErrors)
	}
	return queryAll(ctx, db, "list workers", scan, `SELECT name, lanes, languages, state, state_reason, state_by, state_at,
		       started_at, last_seen, stopped_at, recent_errors
		  FROM workers ORDER BY name`)
}

// Capacity is what the live workers that claim offer: per lane, the slots they judge at
// once and the languages they run.
type Capacity struct {
	lanes map[job.Lane]*laneCapacity
}

type laneCapacity struct {
	slots int
	// workers counts the lane's live workers, active or not.
	workers int
	// any is set when an active worker of the lane runs any language (announced none).
	any       bool
	languages map[string]bool
}

// Empty reports whether no worker is live at all.
func (c Capacity) Empty() bool { return len(c.lanes) == 0 }

// Slots is how many submissions of lane the live active workers judge at once.
func (c Capacity) Slots(lane job.Lane) int {
	if l := c.lanes[lane]; l != nil {
		return l.slots
	}
	return 0
}

// Gated reports whether lane's releases are picked by language: some live worker reads
// the lane. With none (workers not started yet, or from before announcements carried
// languages) rows are released as before, and a worker that reads one it cannot run
// hands it back.
func (c Capacity) Gated(lane job.Lane) bool {
	l := c.lanes[lane]
	return l != nil && l.workers > 0 && !l.any
}

// Runs reports whether a live active worker of lane runs language.
func (c Capacity) Runs(lane job.Lane, language string) bool {
	l := c.lanes[lane]
	return l != nil && (l.any || l.languages[language])
}

// Languages lists the languages the live active workers of lane run (nil when Gated is
// false: every language goes).
func (c Capacity) Languages(lane job.Lane) []string {
	if !c.Gated(lane) {
		return nil
	}
	out := make([]string, 0, len(c.lanes[lane].languages))
	for l := range c.lanes[lane].languages {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// LiveCapacity reads the Capacity of the workers seen within the last within. A worker
// killed without a word drops out once within has passed; one that is not active counts
// as live (the lane has workers) but offers nothing.
func LiveCapacity(ctx context.Context, db DB, within time.Duration) (Capacity, error) {
	type row struct {
		lanes     map[string]int
		languages []string
		state     WorkerState
	}
	scan := func(rows pgx.Row, r *row) error {
		var lanes []byte
		if err := rows.Scan(&lanes, &r.languages, &r.state); err != nil {
			return err
		}
		return json.Unmarshal(lanes, &r.lanes)
	}
	rows, err := queryAll(ctx, db, "live capacity", scan, `SELECT lanes, languages, state FROM workers
		 WHERE stopped_at IS NULL AND last_seen > now() - $1 * interval '1 microsecond'`, within.Microseconds())
	if err != nil {
		return Capacity{}, err
	}
	c := Capacity{lanes: map[job.Lane]*laneCapacity{}}
	for _, r := range rows {
		for lane, n := range r.lanes {
			if n <= 0 {
				continue
			}
			l := c.lanes[job.Lane(lane)]
			if l == nil {
				l = &laneCapacity{languages: map[string]bool{}}
				c.lanes[job.Lane(lane)] = l
			}
			l.workers++
			if !r.state.Claims() {
				continue
			}
			l.slots += n
			if r.languages == nil {
				l.any = true
			}
			for _, lang := range r.languages {
				l.languages[lang] = true
			}
		}
	}
	return c, nil
}

// WaitingReason is what a queued submission in language says while no live worker runs it.
func WaitingReason(language string) string {
	return fmt.Sprintf("queued: no live worker runs %s", language)
}

// Waiting is the reason a queued submission of lane in language waits for a worker, or ""
// when a live active worker runs it.
func (c Capacity) Waiting(lane job.Lane, language string) string {
	if c.Runs(lane, language) {
		return ""
	}
	return WaitingReason(language)
}

// RunningInLane counts lane's submissions being judged now (state running under a live
// lease): the slots its workers have taken. A submission whose lease ended takes no slot:
// its stream entry, while pending, counts as pending instead; once the entry is gone (its
// write-back was fenced off as lease_lost and acked, or Redis lost it) the reconciler
// re-drives it, and the row it re-drives must find room in the lane rather than wait
// behind its own dead lease.
func RunningInLane(ctx context.Context, db DB, lane job.Lane) (int, error) {
	var n int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM submissions WHERE state = 'running' AND lane = $1
		AND lease_until > now()`, string(lane)).Scan(&n); err != nil {
		return 0, fmt.Errorf("running in %s: %w", lane, err)
	}
	return n, nil
}
