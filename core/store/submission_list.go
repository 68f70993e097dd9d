package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"oj/core/job"
)

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
