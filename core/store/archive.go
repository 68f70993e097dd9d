package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ProblemSummary is a problem as the admin list shows it: its latest version, how many
// submissions it has, and whether it is archived.
type ProblemSummary struct {
	ID          string
	Title       string
	Version     int
	SHA256      string
	CaseCount   int
	Submissions int64
	// ArchivedAt is set while the problem is archived (RemoveProblem).
	ArchivedAt *time.Time
	// CreatedAt is the problem's first upload, UpdatedAt its latest version's.
	CreatedAt time.Time
	UpdatedAt time.Time
	// The latest version's limits, the format its package came in ("" for one recorded
	// before formats), and whether its time limit waits for a verify to derive it.
	TimeLimitMS          int
	MemoryLimitMB        int
	Format               string
	TimeLimitProvisional bool
	// VerifyState and VerifySummary are the latest version's latest verification ("" when
	// it has none).
	VerifyState   string
	VerifySummary string
}

// ArchivedFilter selects problems by their archive state in ListProblems.
type ArchivedFilter string

// The archive filters.
const (
	AllProblems      ArchivedFilter = "all"
	LiveProblems     ArchivedFilter = "live"
	ArchivedProblems ArchivedFilter = "archived"
)

// The submission count is a subquery per problem on submissions_problem (problem_id, …).
const problemSummarySQL = `SELECT p.id, v.title, v.version, v.sha256, v.case_count,
       (SELECT count(*) FROM submissions s WHERE s.problem_id = p.id AND s.purpose = 'user'), p.archived_at, p.created_at, v.created_at,
       v.time_limit_ms, v.memory_limit_mb, coalesce(v.meta->>'format', ''), coalesce(v.meta->>'time_limit_provisional' = 'true', false),
       coalesce(pv.state, ''), coalesce(pv.result->>'summary', '')
  FROM problems p JOIN problem_versions v ON v.problem_id = p.id AND v.version = p.latest_version
  LEFT JOIN LATERAL (SELECT state, result FROM problem_verifications
                      WHERE problem_id = p.id AND version = v.version ORDER BY id DESC LIMIT 1) pv ON true`

func scanProblemSummary(row pgx.Row, p *ProblemSummary) error {
	return row.Scan(&p.ID, &p.Title, &p.Version, &p.SHA256, &p.CaseCount, &p.Submissions, &p.ArchivedAt,
		&p.CreatedAt, &p.UpdatedAt, &p.TimeLimitMS, &p.MemoryLimitMB, &p.Format, &p.TimeLimitProvisional,
		&p.VerifyState, &p.VerifySummary)
}

// ListProblems returns every problem with a version, archived ones included unless
// filter says otherwise, ordered by id.
func ListProblems(ctx context.Context, db DB, filter ArchivedFilter) ([]ProblemSummary, error) {
	var cond string
	switch filter {
	case AllProblems, "":
		cond = "TRUE"
	case LiveProblems:
		cond = "p.archived_at IS NULL"
	case ArchivedProblems:
		cond = "p.archived_at IS NOT NULL"
	default:
		return nil, fmt.Errorf("list problems: archived filter %q (want all, live or archived)", filter)
	}
	return queryAll(ctx, db, "list problems", scanProblemSummary, problemSummarySQL+` WHERE `+cond+` ORDER BY p.id`)
}

// GetProblem returns a problem's summary, archived or not; ErrNotFound when it does not
// exist. Admin actions on a whole problem (rejudge, removal) look it up here: an archived
// problem's submissions can still be rejudged.
func GetProblem(ctx context.Context, db DB, id string) (*ProblemSummary, error) {
	var p ProblemSummary
	if err := scanProblemSummary(db.QueryRow(ctx, problemSummarySQL+` WHERE p.id = $1`, id), &p); err != nil {
		return nil, translate(err, "get problem")
	}
	return &p, nil
}

// What RemoveProblem did to a problem.
const (
	ProblemArchived = "archived"
	ProblemDeleted  = "deleted"
)

// RemoveProblem removes a problem and says how: a problem with submissions is archived
// (archived_at set, kept if it already was; its versions stay, so its submissions keep
// judging, rejudging and replaying), one without is deleted with its versions. Package
// objects are left in the object store either way: they are content-addressed, and
// another problem's version may hold the same bytes. ErrNotFound when the problem does
// not exist. Run it in a transaction (InDryTx for a dry run).
//
// The problem's row lock orders it against uploads of the problem. A submit does not
// take that lock: one that read the problem just before a delete committed can still
// store its submission. That submission keeps its pinned package sha256 and judges
// normally, and the problem then has a submission but no row until it is uploaded again.
func RemoveProblem(ctx context.Context, db DB, id string, now time.Time) (action string, submissions int64, err error) {
	err = InTx(ctx, db, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT id FROM problems WHERE id = $1 FOR UPDATE`, id).Scan(&id); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM submissions WHERE problem_id = $1`, id).Scan(&submissions); err != nil {
			return err
		}
		if submissions > 0 {
			action = ProblemArchived
			_, err := tx.Exec(ctx, `UPDATE problems SET archived_at = coalesce(archived_at, $2) WHERE id = $1`, id, now)
			return err
		}
		action = ProblemDeleted
		if _, err := tx.Exec(ctx, `DELETE FROM problem_versions WHERE problem_id = $1`, id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM problems WHERE id = $1`, id)
		return err
	})
	if err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return "", 0, fmt.Errorf("remove problem %s: %w", id, ErrNotFound)
		}
		return "", 0, fmt.Errorf("remove problem %s: %w", id, err)
	}
	return action, submissions, nil
}
