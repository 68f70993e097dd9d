package store

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"oj/core/job"
)

// NewSubmission is what the API accepts.
type NewSubmission struct {
	OwnerID        *int64
	ProblemID      string
	ProblemVersion int
	ProblemSHA256  string
	Language       string
	Lane           job.Lane
	Source         string
	MaxAttempts    int
	IdempotencyKey string
	TraceID        string
}

// RequestHash is the fingerprint of a submit request, compared on an Idempotency-Key replay.
func (n NewSubmission) RequestHash() []byte {
	h := sha256.New()
	for _, s := range []string{n.ProblemID, n.Language, n.Source} {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	return h.Sum(nil)
}

// Submission is a submission as stored.
type Submission struct {
	ID             string
	OwnerID        *int64
	ProblemID      string
	ProblemVersion int
	ProblemSHA256  string
	Language       string
	Lane           job.Lane
	Source         string
	State          job.State
	Attempt        int
	Failures       int
	MaxAttempts    int
	LeaseOwner     string
	LeaseUntil     *time.Time
	Verdict        job.Verdict
	Score          float64
	TimeMS         int
	MemoryKB       int
	CompileOutput  string
	Cases          []job.CaseResult
	LastError      string
	TraceID        string
	CreatedAt      time.Time
	QueuedAt       time.Time
	StartedAt      *time.Time
	FinishedAt     *time.Time
}

const insertSubmissionSQL = `
INSERT INTO submissions (id, owner_id, problem_id, problem_version, problem_sha256, language, lane,
                         source, max_attempts, idempotency_key, request_hash, trace_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULLIF($10, ''), $11, $12)`

// InsertSubmission inserts a queued submission and returns its id. It does not enqueue it:
// Submit (or a caller's own transaction) adds the outbox row.
func InsertSubmission(ctx context.Context, db DB, n NewSubmission) (string, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return "", fmt.Errorf("insert submission: %w", err)
	}
	if n.MaxAttempts <= 0 {
		n.MaxAttempts = 3
	}
	_, err = db.Exec(ctx, insertSubmissionSQL, id.String(), n.OwnerID, n.ProblemID, n.ProblemVersion,
		n.ProblemSHA256, n.Language, string(n.Lane), n.Source, n.MaxAttempts, n.IdempotencyKey,
		n.RequestHash(), n.TraceID)
	if err != nil {
		return "", fmt.Errorf("insert submission: %w", err)
	}
	return id.String(), nil
}

// Submit accepts a submission: the submission row, its outbox row and its first history
// row commit in one transaction (invariant 2), or nothing does.
func Submit(ctx context.Context, db DB, n NewSubmission) (string, error) {
	var id string
	err := InTx(ctx, db, func(tx pgx.Tx) error {
		var err error
		if id, err = InsertSubmission(ctx, tx, n); err != nil {
			return err
		}
		if err := EnqueueJob(ctx, tx, id, n.Lane, n.TraceID, 0); err != nil {
			return err
		}
		return AddHistory(ctx, tx, History{SubmissionID: id, Event: "submitted", Attempt: 0})
	})
	if err != nil {
		return "", fmt.Errorf("submit: %w", err)
	}
	return id, nil
}

const submissionColumns = `id::text, owner_id, problem_id, problem_version, problem_sha256, language, lane,
    source, state, attempt, failures, max_attempts, coalesce(lease_owner, ''), lease_until,
    coalesce(verdict, ''), coalesce(score, 0), coalesce(time_ms, 0), coalesce(memory_kb, 0),
    compile_output, cases, last_error, trace_id, created_at, queued_at, started_at, finished_at`

func scanSubmission(row pgx.Row) (*Submission, error) {
	var s Submission
	var lane, state, verdict string
	var cases []byte
	err := row.Scan(&s.ID, &s.OwnerID, &s.ProblemID, &s.ProblemVersion, &s.ProblemSHA256, &s.Language,
		&lane, &s.Source, &state, &s.Attempt, &s.Failures, &s.MaxAttempts, &s.LeaseOwner, &s.LeaseUntil,
		&verdict, &s.Score, &s.TimeMS, &s.MemoryKB, &s.CompileOutput, &cases, &s.LastError, &s.TraceID,
		&s.CreatedAt, &s.QueuedAt, &s.StartedAt, &s.FinishedAt)
	if err != nil {
		return nil, err
	}
	s.Lane, s.State, s.Verdict = job.Lane(lane), job.State(state), job.Verdict(verdict)
	if err := json.Unmarshal(cases, &s.Cases); err != nil {
		return nil, fmt.Errorf("decode cases: %w", err)
	}
	return &s, nil
}

// GetSubmission reads one submission (invariant 1: state and verdict come from here only).
func GetSubmission(ctx context.Context, db DB, id string) (*Submission, error) {
	if _, err := uuid.Parse(id); err != nil {
		return nil, fmt.Errorf("get submission %q: %w", id, ErrNotFound)
	}
	s, err := scanSubmission(db.QueryRow(ctx, `SELECT `+submissionColumns+` FROM submissions WHERE id = $1`, id))
	if err != nil {
		return nil, translate(err, "get submission")
	}
	return s, nil
}

// FindByIdempotencyKey returns the owner's submission made with key, and the request hash
// it was made with.
func FindByIdempotencyKey(ctx context.Context, db DB, ownerID int64, key string) (string, []byte, error) {
	var id string
	var hash []byte
	err := db.QueryRow(ctx, `SELECT id::text, request_hash FROM submissions
		WHERE owner_id = $1 AND idempotency_key = $2`, ownerID, key).Scan(&id, &hash)
	if err != nil {
		return "", nil, translate(err, "find by idempotency key")
	}
	return id, hash, nil
}
