package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"oj/core/job"
)

// Verification states.
const (
	VerifyRunning = "running"
	VerifyPassed  = "passed"
	VerifyFailed  = "failed"
)

// VerifyEntry is one labeled submission of a verification: what the package says of
// it, and the submission that judges it ("" when it was not run: Note says why).
type VerifyEntry struct {
	Source       string   `json:"source"`
	Language     string   `json:"language"`
	Expect       []string `json:"expect"`
	Label        string   `json:"label"`
	Note         string   `json:"note,omitempty"`
	TimeLimit    bool     `json:"time_limit"`
	SubmissionID string   `json:"submission_id,omitempty"`
	// Code is the submission's source, for the transaction that creates it; never stored
	// with the entry (the submission holds it).
	Code string `json:"-"`
}

// Verification is one verification of one problem version.
type Verification struct {
	ID          int64
	ProblemID   string
	Version     int
	State       string
	RequestedBy string
	RunLimitMS  int
	Entries     []VerifyEntry
	Result      json.RawMessage // the verification's table, once it ended
	CreatedAt   time.Time
	FinishedAt  *time.Time
}

// NewVerification is what CreateVerification records.
type NewVerification struct {
	ProblemID   string
	Version     int
	SHA256      string
	RequestedBy string
	TraceID     string
	// RunLimitMS is the time limit its submissions are judged with.
	RunLimitMS int
	Entries    []VerifyEntry
}

// CreateVerification records a verification and, in the same transaction, one queued
// submission per entry with a language (purpose verify, no owner, on the rejudge lane,
// judged with RunLimitMS) with its outbox and history rows. It returns the
// verification's id and how many submissions it made.
func CreateVerification(ctx context.Context, db DB, v NewVerification) (int64, int, error) {
	var id int64
	made := 0
	err := InTx(ctx, db, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `INSERT INTO problem_verifications (problem_id, version, requested_by, run_limit_ms)
			VALUES ($1, $2, $3, $4) RETURNING id`, v.ProblemID, v.Version, v.RequestedBy, v.RunLimitMS).Scan(&id); err != nil {
			return err
		}
		for i := range v.Entries {
			e := &v.Entries[i]
			if e.Language == "" {
				continue
			}
			sid, err := InsertSubmission(ctx, tx, NewSubmission{ProblemID: v.ProblemID, ProblemVersion: v.Version,
				ProblemSHA256: v.SHA256, Language: e.Language, Lane: job.LaneRejudge, Source: e.Code,
				TraceID: v.TraceID, Purpose: PurposeVerify, TimeLimitMS: v.RunLimitMS})
			if err != nil {
				return err
			}
			e.SubmissionID = sid
			made++
			if err := EnqueueJob(ctx, tx, sid, job.LaneRejudge, v.TraceID, 0); err != nil {
				return err
			}
			if err := AddHistory(ctx, tx, History{SubmissionID: sid, Event: EventSubmitted, Actor: v.RequestedBy,
				Detail: fmt.Sprintf("verification %d of %s v%d: %s", id, v.ProblemID, v.Version, e.Source)}); err != nil {
				return err
			}
		}
		entries, err := jsonValue(v.Entries)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE problem_verifications SET entries = $2 WHERE id = $1`, id, entries)
		return err
	})
	if err != nil {
		return 0, 0, fmt.Errorf("create verification: %w", err)
	}
	return id, made, nil
}

const verificationColumns = `id, problem_id, version, state, requested_by, run_limit_ms, entries, result, created_at, finished_at`

func scanVerification(row pgx.Row) (*Verification, error) {
	var v Verification
	var entries, result []byte
	if err := row.Scan(&v.ID, &v.ProblemID, &v.Version, &v.State, &v.RequestedBy, &v.RunLimitMS, &entries, &result,
		&v.CreatedAt, &v.FinishedAt); err != nil {
		return nil, translate(err, "read verification")
	}
	if err := json.Unmarshal(entries, &v.Entries); err != nil {
		return nil, fmt.Errorf("decode verification entries: %w", err)
	}
	v.Result = result
	return &v, nil
}

// LatestVerification returns the newest verification of a problem version;
// ErrNotFound when it has none.
func LatestVerification(ctx context.Context, db DB, problemID string, version int) (*Verification, error) {
	v, err := scanVerification(db.QueryRow(ctx, `SELECT `+verificationColumns+` FROM problem_verifications
		WHERE problem_id = $1 AND version = $2 ORDER BY id DESC LIMIT 1`, problemID, version))
	if err != nil {
		return nil, fmt.Errorf("latest verification: %w", err)
	}
	return v, nil
}

// FinishVerification ends a running verification with its state and table. With
// limitMS > 0 the version's time limit becomes it, derived: in the same transaction,
// and only while the version's limit is still provisional. It reports whether this call
// ended it (another may have first: both computed the same table from the same
// finished submissions).
func FinishVerification(ctx context.Context, db DB, id int64, state string, result any, limitMS int) (bool, error) {
	res, err := jsonValue(result)
	if err != nil {
		return false, fmt.Errorf("finish verification: %w", err)
	}
	ended := false
	err = InTx(ctx, db, func(tx pgx.Tx) error {
		var problemID string
		var version int
		err := tx.QueryRow(ctx, `UPDATE problem_verifications SET state = $2, result = $3, finished_at = now()
			WHERE id = $1 AND state = 'running' RETURNING problem_id, version`, id, state, res).Scan(&problemID, &version)
		if err == pgx.ErrNoRows {
			return nil
		}
		if err != nil {
			return err
		}
		ended = true
		if limitMS <= 0 {
			return nil
		}
		_, err = tx.Exec(ctx, `UPDATE problem_versions
			SET time_limit_ms = $3, meta = meta || jsonb_build_object('time_limit_provisional', false, 'time_limit_derived_by', $4::bigint)
			WHERE problem_id = $1 AND version = $2 AND coalesce((meta->>'time_limit_provisional')::boolean, false)`,
			problemID, version, limitMS, id)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("finish verification: %w", err)
	}
	return ended, nil
}

// VerificationByID returns one verification; ErrNotFound when there is none.
func VerificationByID(ctx context.Context, db DB, id int64) (*Verification, error) {
	v, err := scanVerification(db.QueryRow(ctx, `SELECT `+verificationColumns+` FROM problem_verifications WHERE id = $1`, id))
	if err != nil {
		return nil, fmt.Errorf("verification %d: %w", id, err)
	}
	return v, nil
}
