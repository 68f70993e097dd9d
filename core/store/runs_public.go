package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A run's public token is a capability set by the face that made it (the Judge0 face's
// submission token): whoever holds it may read the run, so it is random, unguessable
// and unique, and it is looked up through its own index.

// OriginCount is how many runs came through one face.
type OriginCount struct {
	Origin string
	Count  int64
}

// RunOriginCounts counts the runs by origin, in the origins' order ("" — made before
// runs had one — counted as OriginAPI).
func RunOriginCounts(ctx context.Context, db DB) ([]OriginCount, error) {
	return queryAll(ctx, db, "run origin counts", func(row pgx.Row, o *OriginCount) error {
		return row.Scan(&o.Origin, &o.Count)
	}, `SELECT coalesce(NULLIF(origin, ''), 'api') AS o, count(*) FROM submissions WHERE kind = 'run'
		GROUP BY o ORDER BY o`)
}

// MaxPublicTokens is how many tokens one GetRunsByPublicTokens reads.
const MaxPublicTokens = 20

// ErrPublicTokenTaken is a run refused because another run has its public token.
var ErrPublicTokenTaken = errors.New("public token already taken")

// publicTokenTaken translates the unique index's refusal of a new run.
func publicTokenTaken(err error) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == "23505" && pg.ConstraintName == "submissions_public_token" {
		return ErrPublicTokenTaken
	}
	return err
}

// GetRunByPublicToken reads the run whose public token is token, as GetRun does:
// ErrNotFound when no run has it.
func GetRunByPublicToken(ctx context.Context, db DB, token string) (*Submission, error) {
	if token == "" {
		return nil, fmt.Errorf("get run by public token: %w", ErrNotFound)
	}
	s, err := scanSubmission(db.QueryRow(ctx, `SELECT `+submissionColumns+` FROM submissions
		WHERE public_token = $1 AND kind = 'run'`, token))
	if err != nil {
		return nil, translate(err, "get run by public token")
	}
	return s, nil
}

// GetRunsByPublicTokens reads the runs of up to MaxPublicTokens tokens in one statement.
// The answer is in the order of tokens, nil for a token no run has (a token given twice
// gets its run twice).
func GetRunsByPublicTokens(ctx context.Context, db DB, tokens []string) ([]*Submission, error) {
	if len(tokens) > MaxPublicTokens {
		return nil, fmt.Errorf("get runs by public tokens: %d tokens, at most %d", len(tokens), MaxPublicTokens)
	}
	out := make([]*Submission, len(tokens))
	if len(tokens) == 0 {
		return out, nil
	}
	rows, err := db.Query(ctx, `SELECT `+submissionColumns+` FROM submissions
		WHERE public_token = ANY($1::text[]) AND kind = 'run'`, tokens)
	if err != nil {
		return nil, fmt.Errorf("get runs by public tokens: %w", err)
	}
	defer rows.Close()
	found := make(map[string]*Submission, len(tokens))
	for rows.Next() {
		s, err := scanSubmission(rows)
		if err != nil {
			return nil, fmt.Errorf("get runs by public tokens: %w", err)
		}
		found[s.PublicToken] = s
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("get runs by public tokens: %w", err)
	}
	for i, t := range tokens {
		out[i] = found[t]
	}
	return out, nil
}
