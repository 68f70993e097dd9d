package store

import (
	"context"
	"fmt"
	"time"

	"oj/core/job"

	"github.com/jackc/pgx/v5"
)

// ClaimOutcome says what a claim did with one submission id.
type ClaimOutcome int

// Claim outcomes. Only Claimed may be judged; the others are decided by PostgreSQL, so the
// stream entry that carried them may be acknowledged — except Leased for an entry taken
// over by reclaim, whose live holder will acknowledge it itself.
const (
	Claimed         ClaimOutcome = iota // attempt+1 and a lease are ours
	NotFound                            // no such submission
	AlreadyTerminal                     // finished, dead or canceled
	Leased                              // another worker holds a live lease
	Exhausted                           // the previous holder's lease expired and no attempts are left
	// Incapable: the submission's language is not one the claiming worker runs. It was not
	// claimed and no attempt was spent; the worker hands it back (HandBack, or EndAttempt
	// for an expired lease it found on reclaim) so that a capable worker judges it.
	Incapable
	// Parked: the claiming worker is not active (drained, disabled or quarantined) in
	// PostgreSQL; nothing was claimed. It hands a queued submission back at once, and
	// leaves an expired lease's entry to another worker's reclaim.
	Parked
)

func (o ClaimOutcome) String() string {
	return [...]string{"claimed", "not_found", "already_terminal", "leased", "exhausted", "incapable", "parked"}[o]
}

// ClaimResult is the claim's answer for one id; Task is set when Outcome is Claimed.
type ClaimResult struct {
	ID      string
	Outcome ClaimOutcome
	Attempt int // the new attempt (Claimed) or the current one
	// State is the submission's state before the claim ("" when not found).
	State job.State
	Task  job.Task
}

// claimSQL claims many submissions in one statement (invariant 3). A submission is
// claimable when queued, or running under a lease that expired before $3 (reclaim,
// invariant 6: the attempt bump fences off the old holder). The final SELECT reads the
// pre-statement snapshot to explain every id that was not claimed. $5 is the languages
// the worker runs (NULL: any): a submission in another language is never claimed. A
// worker whose row says it is not active claims nothing (no row: a worker that has not
// announced itself yet, active).
const claimSQL = `
WITH input AS (
    SELECT DISTINCT i.id FROM unnest($1::text[]::uuid[]) AS i(id)
), me AS (
    SELECT coalesce((SELECT w.state FROM workers w WHERE w.name = $2), 'active') AS state
), claimed AS (
    UPDATE submissions s
       SET attempt = s.attempt + 1,
           failures = s.failures + CASE WHEN s.state = 'running' THEN 1 ELSE 0 END,
           state = 'running', lease_owner = $2, lease_until = $4, started_at = $3
      FROM input i
     WHERE s.id = i.id
       AND (s.state = 'queued'
            OR (s.state = 'running' AND s.lease_until <= $3 AND s.failures + 1 < s.max_attempts))
       AND ($5::text[] IS NULL OR s.language = ANY($5::text[]))
       AND (SELECT state FROM me) = 'active'
    RETURNING s.id, s.attempt, s.problem_id, s.problem_version, s.problem_sha256, s.language,
              s.lane, s.source, s.trace_id, s.time_limit_ms, s.kind, s.run_spec
), hist AS (
    INSERT INTO submission_history (submission_id, at, event, attempt, worker, detail)
    SELECT c.id, $3, 'claimed', c.attempt, $2,
           CASE WHEN old.state = 'running' THEN 'reclaimed: lease of ' || old.lease_owner || ' expired' ELSE '' END
      FROM claimed c JOIN submissions old ON old.id = c.id
)
SELECT i.id::text, c.id IS NOT NULL, coalesce(c.attempt, cur.attempt, 0),
       coalesce(c.problem_id, ''), coalesce(c.problem_version, 0), coalesce(c.problem_sha256, ''),
       coalesce(c.language, ''), coalesce(c.lane, ''), coalesce(c.source, ''), coalesce(c.trace_id, ''),
       coalesce(c.kind, ''), c.run_spec, cur.id IS NOT NULL, coalesce(cur.state::text, ''),
       coalesce(cur.lease_until > $3, false),
       coalesce(c.time_limit_ms, pv.time_limit_ms, 0),
       $5::text[] IS NULL OR coalesce(cur.language = ANY($5::text[]), false),
       (SELECT state FROM me)
  FROM input i
  LEFT JOIN claimed c ON c.id = i.id
  LEFT JOIN submissions cur ON cur.id = i.id
  LEFT JOIN problem_versions pv ON pv.problem_id = c.problem_id AND pv.version = c.problem_version`

// ClaimBatch claims the submissions ids for worker owner with a lease of leaseFor from now,
// among those in one of languages (nil: any language).
func ClaimBatch(ctx context.Context, db DB, ids []string, owner string, now time.Time, leaseFor time.Duration, languages []string) ([]ClaimResult, error) {
	rows, err := db.Query(ctx, claimSQL, ids, owner, now, now.Add(leaseFor), languages)
	if err != nil {
		return nil, fmt.Errorf("claim: %w", err)
	}
	defer rows.Close()
	out := make([]ClaimResult, 0, len(ids))
	for rows.Next() {
		var r ClaimResult
		var claimed, found, live, capable bool
		var lane, state, mine, kind string
		t := &r.Task
		if err := rows.Scan(&r.ID, &claimed, &r.Attempt, &t.ProblemID, &t.ProblemVersion, &t.ProblemSHA256,
			&t.Language, &lane, &t.Source, &t.TraceID, &kind, &t.Run, &found, &state, &live, &t.TimeLimitMS, &capable, &mine); err != nil {
			return nil, fmt.Errorf("claim: %w", err)
		}
		r.State = job.State(state)
		switch {
		case claimed:
			r.Outcome = Claimed
			t.SubmissionID, t.Attempt, t.Lane, t.Kind = r.ID, r.Attempt, job.Lane(lane), job.Kind(kind)
		case !found:
			r.Outcome = NotFound
		case job.State(state).Terminal():
			r.Outcome = AlreadyTerminal
		case job.State(state) == job.StateRunning && live:
			r.Outcome = Leased
		case mine != string(WorkerActive):
			r.Outcome = Parked
		case !capable:
			r.Outcome = Incapable
		case job.State(state) == job.StateRunning:
			r.Outcome = Exhausted
		default:
			// Running under a live lease, or queued in the snapshot but claimed by a
			// concurrent worker first.
			r.Outcome = Leased
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("claim: %w", err)
	}
	return out, nil
}

// Lease identifies one claimed attempt.
type Lease struct {
	ID      string
	Attempt int
}

// Heartbeat extends the leases still held by owner and returns those that were lost
// (expired, reclaimed, canceled): their judging should stop, since the finalize would be
// fenced off anyway.
func Heartbeat(ctx context.Context, db DB, owner string, leases []Lease, now time.Time, leaseFor time.Duration) ([]Lease, error) {
	ids, attempts := splitLeases(leases)
	return queryAll(ctx, db, "heartbeat", func(rows pgx.Row, l *Lease) error { return rows.Scan(&l.ID, &l.Attempt) }, `
		WITH input AS (SELECT * FROM unnest($1::text[]::uuid[], $2::int[]) AS i(id, attempt)),
		ext AS (
		    UPDATE submissions s SET lease_until = $5
		      FROM input i
		     WHERE s.id = i.id AND s.attempt = i.attempt AND s.lease_owner = $3
		       AND s.state = 'running' AND s.lease_until > $4
		    RETURNING s.id)
		SELECT i.id::text, i.attempt FROM input i LEFT JOIN ext ON ext.id = i.id WHERE ext.id IS NULL`,
		ids, attempts, owner, now, now.Add(leaseFor))
}

func splitLeases(leases []Lease) ([]string, []int32) {
	ids := make([]string, len(leases))
	attempts := make([]int32, len(leases))
	for i, l := range leases {
		ids[i], attempts[i] = l.ID, int32(l.Attempt)
	}
	return ids, attempts
}
