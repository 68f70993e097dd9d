package store

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
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
	// Metadata is the caller's own tags (the API checks their shape); part of the
	// idempotency comparison.
	Metadata map[string]string
	// MaxLive, when > 0, refuses the submit (a *LiveBoundError) while the owner already
	// has that many submissions queued or running. RefuseIfQueued refuses it while the
	// owner has any submission queued: the API asks for it when the whole queue is over
	// its backlog threshold, so that the refusals fall on the users holding the backlog.
	// Both are decided in the submit's transaction, under a lock of the owner's, so that
	// concurrent submits of one owner cannot both pass. Neither applies without an owner.
	MaxLive        int
	RefuseIfQueued bool
	// Purpose is PurposeUser (the default) or PurposeVerify: a verification's
	// submission, which counts for no one.
	Purpose string
	// TimeLimitMS, when > 0, is the limit it is judged with instead of its version's.
	TimeLimitMS int
}

// Submission purposes.
const (
	PurposeUser   = "user"
	PurposeVerify = "verify"
	// PurposeAll, in a filter, matches every purpose.
	PurposeAll = "all"
)

// LiveBoundError is a submit refused for its owner's live submissions: Limit (MaxLive)
// reached, or Backlog (RefuseIfQueued) while Queued > 0.
type LiveBoundError struct {
	Queued, Running int
	Limit           int
	Backlog         bool
}

func (e *LiveBoundError) Error() string {
	if e.Backlog {
		return fmt.Sprintf("owner has %d submissions queued while the queue is over its backlog threshold", e.Queued)
	}
	return fmt.Sprintf("owner has %d submissions queued or running, the limit is %d", e.Queued+e.Running, e.Limit)
}

// checkLive applies n's bounds on its owner's live submissions, in tx.
func checkLive(ctx context.Context, tx pgx.Tx, n NewSubmission) error {
	if n.OwnerID == nil || (n.MaxLive <= 0 && !n.RefuseIfQueued) {
		return nil
	}
	// One owner's submits take turns here (the two-key form, so that no other advisory
	// lock of the database can collide with it).
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(28522, ($1 % 2147483647)::int)`, *n.OwnerID); err != nil {
		return err
	}
	var queued, running int
	if err := tx.QueryRow(ctx, `SELECT count(*) FILTER (WHERE state = 'queued'), count(*) FILTER (WHERE state = 'running')
		  FROM submissions WHERE owner_id = $1 AND state IN ('queued', 'running') AND kind = 'submission'`, *n.OwnerID).Scan(&queued, &running); err != nil {
		return err
	}
	switch {
	case n.MaxLive > 0 && queued+running >= n.MaxLive:
		return &LiveBoundError{Queued: queued, Running: running, Limit: n.MaxLive}
	case n.RefuseIfQueued && queued > 0:
		return &LiveBoundError{Queued: queued, Running: running, Backlog: true}
	}
	return nil
}

// RequestHash is the fingerprint of a submit request, compared on an Idempotency-Key
// replay: problem, language, source and metadata (in key order). A request without
// metadata hashes as it did before metadata existed.
func (n NewSubmission) RequestHash() []byte {
	h := sha256.New()
	for _, s := range []string{n.ProblemID, n.Language, n.Source} {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	keys := make([]string, 0, len(n.Metadata))
	for k := range n.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "m%d:%s%d:%s", len(k), k, len(n.Metadata[k]), n.Metadata[k])
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
	Purpose        string
	Metadata       map[string]string
	CreatedAt      time.Time
	QueuedAt       time.Time
	StartedAt      *time.Time
	FinishedAt     *time.Time
	// Kind tells a submission from a run; a run has Run (its inputs and limits) and,
	// once finished without CE or SE, RunResults.
	Kind       job.Kind
	Run        *job.RunSpec
	RunResults []job.RunResult
	// PublicToken, Callback and Origin are a run's (NewRun's); empty for a submission.
	PublicToken string
	Callback    string
	Origin      string
}

const insertSubmissionSQL = `
INSERT INTO submissions (id, owner_id, problem_id, problem_version, problem_sha256, language, lane,
                         source, max_attempts, idempotency_key, request_hash, trace_id, metadata, purpose, time_limit_ms)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULLIF($10, ''), $11, $12, coalesce($13::jsonb, '{}'), $14, NULLIF($15, 0))`

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
	if n.Purpose == "" {
		n.Purpose = PurposeUser
	}
	var meta []byte
	if len(n.Metadata) > 0 {
		if meta, err = json.Marshal(n.Metadata); err != nil {
			return "", fmt.Errorf("insert submission: %w", err)
		}
	}
	_, err = db.Exec(ctx, insertSubmissionSQL, id.String(), n.OwnerID, n.ProblemID, n.ProblemVersion,
		n.ProblemSHA256, n.Language, string(n.Lane), n.Source, n.MaxAttempts, n.IdempotencyKey,
		n.RequestHash(), n.TraceID, meta, n.Purpose, n.TimeLimitMS)
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
		if err := checkLive(ctx, tx, n); err != nil {
			return err
		}
		var err error
		if id, err = InsertSubmission(ctx, tx, n); err != nil {
			return err
		}
		if err := EnqueueJob(ctx, tx, id, n.Lane, n.TraceID, 0); err != nil {
			return err
		}
		return AddHistory(ctx, tx, History{SubmissionID: id, Event: EventSubmitted, Attempt: 0})
	})
	if err != nil {
		return "", fmt.Errorf("submit: %w", err)
	}
	return id, nil
}

const submissionColumns = `id::text, owner_id, problem_id, problem_version, problem_sha256, language, lane,
    source, state, attempt, failures, max_attempts, coalesce(lease_owner, ''), lease_until,
    coalesce(verdict, ''), coalesce(score, 0), coalesce(time_ms, 0), coalesce(memory_kb, 0),
    compile_output, cases, last_error, trace_id, metadata, purpose, created_at, queued_at, started_at, finished_at,
    kind, run_spec, run_results, coalesce(public_token, ''), coalesce(callback_url, ''), origin, compile_raw`

func scanSubmission(row pgx.Row) (*Submission, error) {
	var s Submission
	var lane, state, verdict, kind string
	var cases, compileRaw []byte
	err := row.Scan(&s.ID, &s.OwnerID, &s.ProblemID, &s.ProblemVersion, &s.ProblemSHA256, &s.Language,
		&lane, &s.Source, &state, &s.Attempt, &s.Failures, &s.MaxAttempts, &s.LeaseOwner, &s.LeaseUntil,
		&verdict, &s.Score, &s.TimeMS, &s.MemoryKB, &s.CompileOutput, &cases, &s.LastError, &s.TraceID,
		&s.Metadata, &s.Purpose, &s.CreatedAt, &s.QueuedAt, &s.StartedAt, &s.FinishedAt, &kind, &s.Run, &s.RunResults,
		&s.PublicToken, &s.Callback, &s.Origin, &compileRaw)
	if err != nil {
		return nil, err
	}
	if compileRaw != nil {
		s.CompileOutput = string(compileRaw)
	}
	s.Lane, s.State, s.Verdict, s.Kind = job.Lane(lane), job.State(state), job.Verdict(verdict), job.Kind(kind)
	if s.Cases, err = decodeCases(cases); err != nil {
		return nil, err
	}
	return &s, nil
}

// GetSubmission reads one submission (invariant 1: state and verdict come from here only).
func GetSubmission(ctx context.Context, db DB, id string) (*Submission, error) {
	if !job.IsSubmissionID(id) {
		// Another spelling of a UUID, or none: PostgreSQL would refuse some of them with
		// an error (a 503 "retry later" that retrying never cures) and take others.
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

// SubmissionSummary is a submission without its source, compile output and cases: one
// row of the admin list.
type SubmissionSummary struct {
	ID         string
	ProblemID  string
	Language   string
	State      job.State
	Verdict    job.Verdict
	Score      float64
	Attempt    int
	TimeMS     int
	MemoryKB   int
	CreatedAt  time.Time
	FinishedAt *time.Time
	// Owner is the name of the token that made it ("" for none); Metadata its caller's tags.
	Owner    string
	Metadata map[string]string
	// Purpose is PurposeUser or PurposeVerify (a verification's submission).
	Purpose string
}

// SubmissionFilter selects a page of ListSubmissions. Empty fields match every
// submission; a zero AfterCreatedAt starts at the newest.
type SubmissionFilter struct {
	State     job.State
	ProblemID string
	// OwnerID keeps one token's submissions (a user's own list); OwnerName the same by
	// the token's name (the admin list).
	OwnerID   *int64
	OwnerName string
	// Metadata keeps the submissions that carry every one of these tags.
	Metadata map[string]string
	// Purpose keeps the submissions made for it: "" or PurposeUser users' (a
	// verification's submissions count for no user), PurposeVerify a verification's,
	// PurposeAll every one.
	Purpose string
	Limit   int
	// AfterCreatedAt and AfterID are the last row of the previous page: the page holds
	// what comes after it in the newest-first order.
	AfterCreatedAt time.Time
	AfterID        string
}

// listSubmissionsSQL builds ListSubmissions' query: only fixed fragments, the values are
// parameters.
func listSubmissionsSQL(f SubmissionFilter) (string, []any, error) {
	args := []any{f.Limit}
	arg := func(v any) string { args = append(args, v); return "$" + strconv.Itoa(len(args)) }
	// Runs are scratch, never part of a list of submissions.
	conds := []string{"s.kind = 'submission'"}
	if f.State != "" {
		conds = append(conds, "s.state = "+arg(string(f.State))+"::submission_state")
	}
	if f.ProblemID != "" {
		conds = append(conds, "s.problem_id = "+arg(f.ProblemID))
	}
	if f.OwnerID != nil {
		conds = append(conds, "s.owner_id = "+arg(*f.OwnerID))
	}
	if f.OwnerName != "" {
		conds = append(conds, "t.name = "+arg(f.OwnerName))
	}
	switch f.Purpose {
	case "":
		conds = append(conds, "s.purpose = "+arg(PurposeUser))
	case PurposeUser, PurposeVerify:
		conds = append(conds, "s.purpose = "+arg(f.Purpose))
	case PurposeAll:
	default:
		return "", nil, fmt.Errorf("list submissions: purpose %q: want %s, %s or %s", clip(f.Purpose, 20), PurposeUser, PurposeVerify, PurposeAll)
	}
	if len(f.Metadata) > 0 {
		b, err := json.Marshal(f.Metadata)
		if err != nil {
			return "", nil, fmt.Errorf("list submissions: %w", err)
		}
		conds = append(conds, "s.metadata @> "+arg(b)+"::jsonb")
	}
	if !f.AfterCreatedAt.IsZero() {
		if _, err := uuid.Parse(f.AfterID); err != nil {
			return "", nil, fmt.Errorf("list submissions: after id %q: %w", f.AfterID, err)
		}
		conds = append(conds, "(s.created_at, s.id) < ("+arg(f.AfterCreatedAt)+", "+arg(f.AfterID)+"::uuid)")
	}
	where := " WHERE " + strings.Join(conds, " AND ")
	// ORDER BY names the table's columns: a bare "id" would be the output column id::text,
	// which no index has.
	return `SELECT s.id::text, s.problem_id, s.language, s.state::text, coalesce(s.verdict, ''),
		       coalesce(s.score, 0), s.attempt, coalesce(s.time_ms, 0), coalesce(s.memory_kb, 0), s.created_at, s.finished_at,
		       coalesce(t.name, ''), s.metadata, s.purpose
		  FROM submissions s LEFT JOIN api_tokens t ON t.id = s.owner_id` + where + ` ORDER BY s.created_at DESC, s.id DESC LIMIT $1`, args, nil
}

// ListSubmissions returns submissions newest first, (created_at, id) descending, keyset
// paged. Each filter has an index whose order is the list's: submissions_recent,
// submissions_state_recent, submissions_problem; so a page reads about Limit index
// entries however long the history is.
func ListSubmissions(ctx context.Context, db DB, f SubmissionFilter) ([]SubmissionSummary, error) {
	query, args, err := listSubmissionsSQL(f)
	if err != nil {
		return nil, err
	}
	rows, err := db.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list submissions: %w", err)
	}
	defer rows.Close()
	out := make([]SubmissionSummary, 0, min(f.Limit, 1000))
	for rows.Next() {
		var s SubmissionSummary
		var state, verdict string
		if err := rows.Scan(&s.ID, &s.ProblemID, &s.Language, &state, &verdict, &s.Score, &s.Attempt,
			&s.TimeMS, &s.MemoryKB, &s.CreatedAt, &s.FinishedAt, &s.Owner, &s.Metadata, &s.Purpose); err != nil {
			return nil, fmt.Errorf("list submissions: %w", err)
		}
		s.State, s.Verdict = job.State(state), job.Verdict(verdict)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list submissions: %w", err)
	}
	return out, nil
}
