package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ProblemVersion is one uploaded version of a problem package.
type ProblemVersion struct {
	ProblemID     string
	Version       int
	SHA256        string
	Title         string
	TimeLimitMS   int
	MemoryLimitMB int
	CaseCount     int
	// Meta holds what the API shows but nothing queries: subtasks, checker type, …
	Meta      map[string]any
	CreatedBy string
	CreatedAt time.Time
}

// CreateProblemVersion records a new version of a problem (creating the problem on its
// first upload) and returns the version number. Concurrent uploads of one problem are
// serialised by the row lock of the latest_version bump. An upload of an archived problem
// brings it back: the new version is live and submissions are accepted again.
func CreateProblemVersion(ctx context.Context, db DB, pv ProblemVersion) (int, error) {
	meta, err := jsonValue(pv.Meta)
	if err != nil {
		return 0, fmt.Errorf("create problem version: %w", err)
	}
	var version int
	err = InTx(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO problems (id) VALUES ($1) ON CONFLICT (id) DO NOTHING`, pv.ProblemID); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `UPDATE problems SET latest_version = latest_version + 1, archived_at = NULL
			WHERE id = $1 RETURNING latest_version`, pv.ProblemID).Scan(&version); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO problem_versions (problem_id, version, sha256, title, time_limit_ms,
			memory_limit_mb, case_count, meta, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			pv.ProblemID, version, pv.SHA256, Text(pv.Title), pv.TimeLimitMS, pv.MemoryLimitMB, pv.CaseCount, meta, pv.CreatedBy)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("create problem version: %w", err)
	}
	return version, nil
}

// LatestProblem returns the newest version of a live problem: what a new submission is
// pinned to and what GET /api/v1/problems/{id} shows. ErrNotFound when the problem does
// not exist, has no version yet, or is archived (RemoveProblem): an archived problem
// takes no new submissions. Its existing submissions do not go through here — they
// keep their pinned version and package sha256 — and admins see it in ListProblems.
func LatestProblem(ctx context.Context, db DB, id string) (*ProblemVersion, error) {
	pv, err := scanProblemVersion(db.QueryRow(ctx, `SELECT `+problemVersionColumns+`
		  FROM problems p JOIN problem_versions v ON v.problem_id = p.id AND v.version = p.latest_version
		 WHERE p.id = $1 AND p.archived_at IS NULL`, id))
	if err != nil {
		return nil, fmt.Errorf("latest problem: %w", err)
	}
	return pv, nil
}

// ProblemVersionAt returns one version of a problem, archived or not: the version a
// submission was judged on, which decides what its owner may see of its cases.
// ErrNotFound when there is no such version.
func ProblemVersionAt(ctx context.Context, db DB, id string, version int) (*ProblemVersion, error) {
	pv, err := scanProblemVersion(db.QueryRow(ctx, `SELECT `+problemVersionColumns+`
		  FROM problem_versions v WHERE v.problem_id = $1 AND v.version = $2`, id, version))
	if err != nil {
		return nil, fmt.Errorf("problem version: %w", err)
	}
	return pv, nil
}

// problemVersionColumns are what scanProblemVersion reads, from problem_versions as v.
const problemVersionColumns = `v.problem_id, v.version, v.sha256, v.title, v.time_limit_ms, v.memory_limit_mb,
	v.case_count, v.meta, v.created_by, v.created_at`

func scanProblemVersion(row pgx.Row) (*ProblemVersion, error) {
	var pv ProblemVersion
	var meta []byte
	err := row.Scan(&pv.ProblemID, &pv.Version, &pv.SHA256, &pv.Title,
		&pv.TimeLimitMS, &pv.MemoryLimitMB, &pv.CaseCount, &meta, &pv.CreatedBy, &pv.CreatedAt)
	if err != nil {
		return nil, translate(err, "read")
	}
	if err := json.Unmarshal(meta, &pv.Meta); err != nil {
		return nil, fmt.Errorf("decode meta: %w", err)
	}
	return &pv, nil
}

// ProblemSubmissions pages through the ids of a problem's terminal submissions (the ones a
// rejudge may requeue), in id order after afterID. A verification's submissions are
// left out: each verification judges its own.
func ProblemSubmissions(ctx context.Context, db DB, problemID, afterID string, limit int) ([]string, error) {
	if afterID == "" {
		afterID = "00000000-0000-0000-0000-000000000000"
	}
	rows, err := db.Query(ctx, `SELECT id::text FROM submissions
		WHERE problem_id = $1 AND kind = 'submission' AND id > $2::uuid AND state IN ('finished', 'dead', 'canceled') AND purpose = 'user'
		ORDER BY id LIMIT $3`, problemID, afterID, limit)
	if err != nil {
		return nil, fmt.Errorf("problem submissions: %w", err)
	}
	return collectStrings(rows, "problem submissions")
}
