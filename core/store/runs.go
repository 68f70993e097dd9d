package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"oj/core/job"
)

// NewRun is a run the API accepts: a program on the caller's inputs, no problem.
type NewRun struct {
	OwnerID     *int64
	Language    string
	Source      string
	Spec        job.RunSpec
	MaxAttempts int
	TraceID     string
	Metadata    map[string]string
	// MaxQueued, when > 0, refuses the run (a *RunsBacklogError) while that many runs are
	// queued already and its owner has one of them: an owner with nothing queued is
	// accepted all the same, so that the runs of a few never shut everybody else out.
	// A run without an owner is refused at the cap.
	MaxQueued int64
	// MaxLive, when > 0, refuses the run (a *RunsLiveError) while its owner has that many
	// runs queued or running.
	MaxLive int
	// PublicToken, when set, is a capability that reads the run (GetRunByPublicToken): a
	// random, unguessable string of 16 to 128 bytes, unique (ErrPublicTokenTaken).
	PublicToken string
	// Callback, when set, is a URL the run's result is PUT to when it ends (finished,
	// dead or canceled): the dispatcher's run callbacks (run_callbacks.go).
	Callback string
	// Origin names the face the run came through ("" is OriginAPI).
	Origin string
}

// Origins of runs.
const (
	OriginAPI    = "api"
	OriginJudge0 = "judge0"
)

// RunsBacklogError is a run refused because Queued runs wait, Limit being the cap, and
// its owner has Mine of them.
type RunsBacklogError struct {
	Queued, Limit, Mine int64
}

func (e *RunsBacklogError) Error() string {
	return fmt.Sprintf("%d runs are queued (%d of them the owner's), the cap is %d", e.Queued, e.Mine, e.Limit)
}

// RunsLiveError is a run refused because its owner has Queued and Running runs, Limit
// (NewRun.MaxLive) in all.
type RunsLiveError struct {
	Queued, Running, Limit int
}

func (e *RunsLiveError) Error() string {
	return fmt.Sprintf("owner has %d runs queued or running, the limit is %d", e.Queued+e.Running, e.Limit)
}

// checkRunBounds applies n's bounds, in tx. An owner's runs take turns here, under a
// lock of the owner's (its own class, apart from the submits'), so that concurrent runs
// of one owner cannot both pass its bound; the global count is read without a lock:
// runs of different owners may pass the cap by a few, which a backlog bound can live
// with.
func checkRunBounds(ctx context.Context, tx pgx.Tx, n NewRun) error {
	if n.MaxLive <= 0 && n.MaxQueued <= 0 {
		return nil
	}
	var mine, running int
	if n.OwnerID != nil {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(28524, ($1 % 2147483647)::int)`, *n.OwnerID); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FILTER (WHERE state = 'queued'), count(*) FILTER (WHERE state = 'running')
			  FROM submissions WHERE owner_id = $1 AND state IN ('queued', 'running') AND kind = 'run'`, *n.OwnerID).
			Scan(&mine, &running); err != nil {
			return err
		}
		if n.MaxLive > 0 && mine+running >= n.MaxLive {
			return &RunsLiveError{Queued: mine, Running: running, Limit: n.MaxLive}
		}
	}
	if n.MaxQueued <= 0 || (n.OwnerID != nil && mine == 0) {
		return nil
	}
	queued, err := QueuedRuns(ctx, tx)
	if err != nil {
		return err
	}
	if queued >= n.MaxQueued {
		return &RunsBacklogError{Queued: queued, Limit: n.MaxQueued, Mine: int64(mine)}
	}
	return nil
}

const insertRunSQL = `
INSERT INTO submissions (id, kind, owner_id, problem_id, problem_version, language, lane, source, max_attempts,
                         trace_id, metadata, run_spec, public_token, callback_url, origin)
VALUES ($1, 'run', $2, '', 0, $3, 'run', $4, $5, $6, coalesce($7::jsonb, '{}'), $8, NULLIF($9, ''), NULLIF($10, ''), $11)`

// SubmitRun accepts a run like Submit a submission: the row, its outbox row on lane run
// and its first history row commit in one transaction, or nothing does.
func SubmitRun(ctx context.Context, db DB, n NewRun) (string, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return "", fmt.Errorf("submit run: %w", err)
	}
	if n.MaxAttempts <= 0 {
		n.MaxAttempts = 3
	}
	if n.Origin == "" {
		n.Origin = OriginAPI
	}
	var meta []byte
	if len(n.Metadata) > 0 {
		if meta, err = json.Marshal(n.Metadata); err != nil {
			return "", fmt.Errorf("submit run: %w", err)
		}
	}
	spec, err := jsonValue(n.Spec)
	if err != nil {
		return "", fmt.Errorf("submit run: %w", err)
	}
	err = InTx(ctx, db, func(tx pgx.Tx) error {
		if err := checkRunBounds(ctx, tx, n); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, insertRunSQL, id.String(), n.OwnerID, n.Language, n.Source, n.MaxAttempts,
			n.TraceID, meta, spec, n.PublicToken, n.Callback, n.Origin); err != nil {
			return publicTokenTaken(err)
		}
		if err := EnqueueJob(ctx, tx, id.String(), job.LaneRun, n.TraceID, 0); err != nil {
			return err
		}
		return AddHistory(ctx, tx, History{SubmissionID: id.String(), Event: EventSubmitted, Attempt: 0})
	})
	if err != nil {
		return "", fmt.Errorf("submit run: %w", err)
	}
	return id.String(), nil
}

// QueuedRuns counts the runs waiting for a worker (a partial index's entries).
func QueuedRuns(ctx context.Context, db DB) (int64, error) {
	var n int64
	if err := db.QueryRow(ctx, `SELECT count(*) FROM submissions WHERE kind = 'run' AND state = 'queued'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("queued runs: %w", err)
	}
	return n, nil
}

// RunCounts counts the runs per state (runs are kept for runs.retention only, so an
// exact count stays cheap).
func RunCounts(ctx context.Context, db DB) (map[job.State]int64, error) {
	counts, err := keyed[int64](ctx, db, "run counts", `SELECT state::text, count(*) FROM submissions
		WHERE kind = 'run' GROUP BY state`)
	if err != nil {
		return nil, err
	}
	out := make(map[job.State]int64, len(counts))
	for s, n := range counts {
		out[job.State(s)] = n
	}
	return out, nil
}

// GetRun reads one run: ErrNotFound for an id that is not a run's.
func GetRun(ctx context.Context, db DB, id string) (*Submission, error) {
	s, err := GetSubmission(ctx, db, id)
	if err != nil {
		return nil, err
	}
	if s.Kind != job.KindRun {
		return nil, fmt.Errorf("get run %q: %w", id, ErrNotFound)
	}
	return s, nil
}

// pruneRunsSQL deletes the oldest finished runs made and ended before the cutoff, at
// most $2 of them, with their outbox and history rows (which reference them). Only an
// ended run goes: a queued one is still owed its judgment (and its owner its result),
// and a running one's worker would otherwise write back to nothing. One that waited
// long keeps the whole retention after its end, for its owner to read. Runs never have
// dead letters or feed events. A run whose callback has not rendered its body yet (the
// dispatcher has not tried it) is kept until it has.
const pruneRunsSQL = `
WITH victims AS (
    SELECT id FROM submissions
     WHERE kind = 'run' AND created_at < $1 AND state IN ('finished', 'dead', 'canceled')
       AND (finished_at IS NULL OR finished_at < $1)
       AND NOT EXISTS (SELECT 1 FROM run_callbacks c
                        WHERE c.submission_id = submissions.id AND c.status = 'pending' AND c.payload IS NULL)
     ORDER BY created_at, id LIMIT $2
       FOR UPDATE SKIP LOCKED
), o AS (
    DELETE FROM outbox WHERE submission_id IN (SELECT id FROM victims)
), h AS (
    DELETE FROM submission_history WHERE submission_id IN (SELECT id FROM victims)
)
DELETE FROM submissions WHERE id IN (SELECT id FROM victims)`

// PruneRuns deletes up to limit ended runs older than retention (by now) and returns how
// many.
func PruneRuns(ctx context.Context, db DB, retention time.Duration, now time.Time, limit int) (int, error) {
	tag, err := db.Exec(ctx, pruneRunsSQL, now.Add(-retention), limit)
	if err != nil {
		return 0, fmt.Errorf("prune runs: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// encodeRunResults encodes a run's results for the run_results column: a program's
// output is anybody's bytes, NUL included, which jsonValue makes storable.
func encodeRunResults(rs []job.RunResult) ([]byte, error) { return jsonValue(rs) }
