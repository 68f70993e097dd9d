package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"oj/core/job"
)

// Result is one attempt's verdict to be written back.
type Result struct {
	Lease
	Outcome job.Outcome
	// Error is the reason of an SE verdict the worker decided itself (a judge that panicked,
	// a result PostgreSQL refused); it becomes the submission's error. Empty otherwise.
	Error string
}

// finalizeSQL writes many verdicts in one statement, each fenced by its own attempt, the
// worker's lease and the lease's expiry (invariant 4). Rows that match nothing are
// explained from the pre-statement snapshot.
const finalizeSQL = `
WITH input AS (
    SELECT * FROM unnest($1::text[]::uuid[], $2::int[], $3::text[], $4::float8[], $5::bigint[], $6::bigint[],
                         $7::text[], $8::jsonb[], $11::text[], $12::jsonb[], $13::bytea[])
             AS i(id, attempt, verdict, score, time_ms, memory_kb, compile_output, cases, error, run_results, compile_raw)
), done AS (
    UPDATE submissions s
       SET state = 'finished', verdict = NULLIF(i.verdict, ''), run_results = i.run_results, score = i.score, time_ms = i.time_ms,
           memory_kb = i.memory_kb, compile_output = i.compile_output, cases = i.cases,
           compile_raw = CASE WHEN s.kind = 'run' THEN i.compile_raw END,
           lease_owner = NULL, lease_until = NULL, finished_at = $10, last_error = i.error
      FROM input i
     WHERE s.id = i.id AND s.attempt = i.attempt AND s.lease_owner = $9
       AND s.lease_until > $10 AND s.state = 'running'
    RETURNING s.id, s.attempt, s.verdict, s.last_error
), hist AS (
    INSERT INTO submission_history (submission_id, at, event, attempt, worker, detail)
    SELECT id, $10, 'finished', attempt, $9,
           coalesce(verdict, 'run') || CASE WHEN last_error <> '' THEN ': ' || last_error ELSE '' END FROM done
)
SELECT i.id::text, done.id IS NOT NULL, cur.id IS NOT NULL, coalesce(cur.state::text, ''),
       coalesce(cur.attempt, 0), coalesce(cur.lease_owner, ''), coalesce(cur.lease_until > $10, false)
  FROM input i
  LEFT JOIN done ON done.id = i.id
  LEFT JOIN submissions cur ON cur.id = i.id`

// FinalizeBatch writes the verdicts of owner's attempts. The returned slice has one entry
// per result, in order: nil when written, else a fence error (ErrStaleAttempt,
// ErrAlreadyTerminal, ErrLeaseLost, ErrNotFound). The error return means nothing was
// written: Permanent(err) when some result can never be stored (a score that is not
// finite or past job.MaxScore, a value PostgreSQL refuses; the caller splits the batch to
// find it), else a system error worth retrying. Free text is made storable
// here (Text, jsonValue); times and memory too large for their columns are refused by
// PostgreSQL rather than wrapped.
func FinalizeBatch(ctx context.Context, db DB, owner string, results []Result, now time.Time) ([]error, error) {
	n := len(results)
	ids, attempts := make([]string, n), make([]int32, n)
	verdicts, scores := make([]string, n), make([]float64, n)
	times, mems := make([]int64, n), make([]int64, n)
	outputs, cases, errs := make([]string, n), make([]string, n), make([]string, n)
	// A run's results (NULL for a submission, and for a run that ended CE or SE).
	runs := make([]*string, n)
	// A compile output that Text had to change, byte for byte (kept for runs only).
	raws := make([][]byte, n)
	index := make(map[string]int, n)
	for i, r := range results {
		o := r.Outcome
		// PostgreSQL stores ±Inf and NaN in float8, and no answer could render them
		// afterwards: such an outcome is refused here, whatever the judge did before.
		if err := job.CheckOutcome(o); err != nil {
			return nil, unstorable(fmt.Errorf("finalize %s: %w", r.ID, err))
		}
		ids[i], attempts[i] = r.ID, int32(r.Attempt)
		verdicts[i], scores[i] = string(o.Verdict), o.Score
		times[i], mems[i] = int64(o.TimeMS), int64(o.MemoryKB)
		outputs[i], errs[i] = Text(o.CompileOutput), Text(r.Error)
		if outputs[i] != o.CompileOutput {
			raws[i] = []byte(o.CompileOutput)
		}
		b, err := encodeCases(o.Cases)
		if err != nil {
			return nil, fmt.Errorf("finalize %s: encode cases: %w", r.ID, err)
		}
		cases[i] = string(b)
		if o.Runs != nil {
			rb, err := encodeRunResults(o.Runs)
			if err != nil {
				return nil, fmt.Errorf("finalize %s: encode run results: %w", r.ID, err)
			}
			s := string(rb)
			runs[i] = &s
		}
		index[r.ID] = i
	}
	rows, err := db.Query(ctx, finalizeSQL, ids, attempts, verdicts, scores, times, mems, outputs, cases, owner, now, errs, runs, raws)
	if err != nil {
		return nil, fmt.Errorf("finalize: %w", err)
	}
	defer rows.Close()
	out := make([]error, n)
	for rows.Next() {
		var id, state, leaseOwner string
		var written, found, live bool
		var attempt int
		if err := rows.Scan(&id, &written, &found, &state, &attempt, &leaseOwner, &live); err != nil {
			return nil, fmt.Errorf("finalize: %w", err)
		}
		i := index[id]
		if !written {
			out[i] = fenceReason(found, job.State(state), attempt, results[i].Attempt, leaseOwner == owner && live)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("finalize: %w", err)
	}
	return out, nil
}

// fenceReason explains a fenced update that matched no row, given the row as it was.
func fenceReason(found bool, state job.State, curAttempt, attempt int, ownLiveLease bool) error {
	switch {
	case !found:
		return ErrNotFound
	case curAttempt != attempt:
		return ErrStaleAttempt
	case state.Terminal():
		return ErrAlreadyTerminal
	case state == job.StateRunning && ownLiveLease:
		// Our lease was live in the snapshot but the row changed under us since.
		return ErrStaleAttempt
	default:
		return ErrLeaseLost
	}
}

// explainFence reads the row to explain why a single fenced update matched nothing.
func explainFence(ctx context.Context, db DB, l Lease, owner string, now time.Time) error {
	var state, leaseOwner string
	var attempt int
	var live bool
	err := db.QueryRow(ctx, `SELECT state::text, attempt, coalesce(lease_owner, ''), coalesce(lease_until > $2, false)
		FROM submissions WHERE id = $1`, l.ID, now).Scan(&state, &attempt, &leaseOwner, &live)
	if err == pgx.ErrNoRows {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("explain fence: %w", err)
	}
	return fenceReason(true, job.State(state), attempt, l.Attempt, leaseOwner == owner && live)
}
