package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"oj/core/job"
)

// The admin queries of the API. Each stays bounded: the live states are counted through
// their partial indexes (submissions_queued, submissions_running_lease), whose size is the
// backlog, never the history; terminal states are estimated from the planner's statistics
// once the table is large.

// IsIdempotencyConflict reports whether err is the unique violation of
// submissions_idempotency: a concurrent submit with the same owner and key won.
func IsIdempotencyConflict(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505" && pe.ConstraintName == "submissions_idempotency"
}

// QueueStats counts queued submissions and returns the oldest one's queue time (nil when
// none), through the partial index on queued submissions.
func QueueStats(ctx context.Context, db DB) (int64, *time.Time, error) {
	var n int64
	var oldest *time.Time
	err := db.QueryRow(ctx, `SELECT count(*), min(queued_at) FROM submissions WHERE state = 'queued' AND kind = 'submission'`).Scan(&n, &oldest)
	if err != nil {
		return 0, nil, fmt.Errorf("queue stats: %w", err)
	}
	return n, oldest, nil
}

// exactCountBelow is the table size under which terminal states are counted exactly.
const exactCountBelow = 100_000

// StateCount is the number of submissions in one state; Estimated says it comes from the
// planner's statistics rather than a count.
type StateCount struct {
	State     job.State
	Count     int64
	Estimated bool
}

// StateCounts returns the number of submissions per state: exact for queued and running
// (partial indexes), exact for the terminal states while the table is small, else
// estimated from pg_class.reltuples × pg_stats' frequency of the state.
func StateCounts(ctx context.Context, db DB) ([]StateCount, error) {
	var queued, running int64
	if err := db.QueryRow(ctx, `SELECT (SELECT count(*) FROM submissions WHERE state = 'queued' AND kind = 'submission'),
		(SELECT count(*) FROM submissions WHERE state = 'running' AND kind = 'submission')`).Scan(&queued, &running); err != nil {
		return nil, fmt.Errorf("state counts: %w", err)
	}
	out := []StateCount{{State: job.StateQueued, Count: queued}, {State: job.StateRunning, Count: running}}
	terminal := []job.State{job.StateFinished, job.StateDead, job.StateCanceled}
	reltuples, err := estimateRows(ctx, db, "submissions")
	if err != nil {
		return nil, err
	}
	if reltuples < exactCountBelow {
		counts, err := keyed[int64](ctx, db, "state counts", `SELECT state::text, count(*) FROM submissions
			WHERE state IN ('finished', 'dead', 'canceled') AND kind = 'submission' GROUP BY state`)
		if err != nil {
			return nil, err
		}
		for _, s := range terminal {
			out = append(out, StateCount{State: s, Count: counts[string(s)]})
		}
		return out, nil
	}
	freq, err := keyed[float64](ctx, db, "state counts", `SELECT v::text, f FROM pg_stats s,
		LATERAL unnest(s.most_common_vals::text::text[], s.most_common_freqs) AS u(v, f)
		WHERE s.schemaname = current_schema() AND s.tablename = 'submissions' AND s.attname = 'state'`)
	if err != nil {
		return nil, err
	}
	for _, s := range terminal {
		out = append(out, StateCount{State: s, Count: int64(reltuples * freq[string(s)]), Estimated: true})
	}
	return out, nil
}

// estimateRows is the planner's row estimate of a table (-1 when never analysed).
func estimateRows(ctx context.Context, db DB, table string) (float64, error) {
	var n float64
	err := db.QueryRow(ctx, `SELECT coalesce((SELECT reltuples FROM pg_class
		WHERE oid = to_regclass(quote_ident(current_schema()) || '.' || $1)), -1)::float8`, table).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("estimate rows of %s: %w", table, err)
	}
	return n, nil
}

// DeadLetterCount counts dead letters exactly while the table is small and returns the
// planner's estimate (estimated = true) once it is large.
func DeadLetterCount(ctx context.Context, db DB) (n int64, estimated bool, err error) {
	est, err := estimateRows(ctx, db, "dead_letters")
	if err != nil {
		return 0, false, err
	}
	if est >= exactCountBelow {
		return int64(est), true, nil
	}
	n, err = CountDeadLetters(ctx, db)
	return n, false, err
}

// LeaseSummary is what one worker (lease owner) holds right now.
type LeaseSummary struct {
	Owner         string
	Count         int
	OldestStarted time.Time
	NextExpiry    time.Time
	Expired       int
}

// LiveLeases groups the running submissions by lease owner (partial index on running).
func LiveLeases(ctx context.Context, db DB, now time.Time) ([]LeaseSummary, error) {
	scan := func(rows pgx.Row, l *LeaseSummary) error {
		return rows.Scan(&l.Owner, &l.Count, &l.OldestStarted, &l.NextExpiry, &l.Expired)
	}
	return queryAll(ctx, db, "live leases", scan, `SELECT lease_owner, count(*), min(coalesce(started_at, queued_at)),
		       min(lease_until), count(*) FILTER (WHERE lease_until <= $1)
		  FROM submissions WHERE state = 'running' GROUP BY lease_owner ORDER BY lease_owner`, now)
}

// LeaseState is what reclaim needs to know about one submission.
type LeaseState struct {
	ID        string
	State     job.State
	Attempt   int
	Owner     string
	LeaseLive bool
}

// LeaseStates reads the state and lease of each id that exists (missing ids are absent).
func LeaseStates(ctx context.Context, db DB, ids []string, now time.Time) (map[string]LeaseState, error) {
	rows, err := db.Query(ctx, `SELECT id::text, state::text, attempt, coalesce(lease_owner, ''),
		       coalesce(lease_until > $2, false)
		  FROM submissions WHERE id = ANY($1::uuid[])`, validUUIDs(ids), now)
	if err != nil {
		return nil, fmt.Errorf("lease states: %w", err)
	}
	defer rows.Close()
	out := map[string]LeaseState{}
	for rows.Next() {
		var l LeaseState
		var st string
		if err := rows.Scan(&l.ID, &st, &l.Attempt, &l.Owner, &l.LeaseLive); err != nil {
			return nil, fmt.Errorf("lease states: %w", err)
		}
		l.State = job.State(st)
		out[l.ID] = l
	}
	return out, rows.Err()
}

// GetDeadLetter returns the dead letter of a submission, ErrNotFound if it has none.
func GetDeadLetter(ctx context.Context, db DB, id string) (*DeadLetter, error) {
	var d DeadLetter
	if err := scanDeadLetter(db.QueryRow(ctx, `SELECT `+deadLetterColumns+` FROM dead_letters
		WHERE submission_id = $1::uuid`, id), &d); err != nil {
		return nil, translate(err, "get dead letter")
	}
	return &d, nil
}

// validUUIDs drops strings that are not UUIDs (a stream entry may carry anything).
func validUUIDs(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if isUUID(id) {
			out = append(out, id)
		}
	}
	return out
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}
