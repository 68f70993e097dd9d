package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Token is an API token's record; the secret itself is never stored, only its SHA-256.
// SubmitRate, SubmitBurst and MaxLive are the token's own submit bounds, RunMaxLive its
// own bound on its runs (nil: the configured defaults).
type Token struct {
	ID          int64
	Name        string
	Role        string
	SubmitRate  *float64
	SubmitBurst *int
	MaxLive     *int
	RunMaxLive  *int
	CreatedBy   string
	CreatedAt   time.Time
	RevokedAt   *time.Time
}

// Roles a token may have.
var Roles = []string{"user", "reader", "admin"}

// NewToken is a token to create: its name, role and own bounds.
type NewToken struct {
	Name        string
	Role        string
	SubmitRate  *float64
	SubmitBurst *int
	MaxLive     *int
	RunMaxLive  *int
	CreatedBy   string
}

// ErrTokenExists is a token name already taken (revoked tokens keep their names).
var ErrTokenExists = fmt.Errorf("a token with this name exists: %w", ErrConflict)

// HashToken is how a presented token is looked up.
func HashToken(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// CreateToken makes a token for name with role (user, reader or admin) and returns its
// secret, which is shown once.
func CreateToken(ctx context.Context, db DB, name, role string) (string, error) {
	secret, _, err := CreateTokenWith(ctx, db, NewToken{Name: name, Role: role})
	return secret, err
}

// CreateTokenWith makes the token t and returns its secret (shown once) and its record.
// ErrTokenExists when the name is taken.
func CreateTokenWith(ctx context.Context, db DB, t NewToken) (string, *Token, error) {
	if !slices.Contains(Roles, t.Role) {
		return "", nil, fmt.Errorf("create token: role %q: want user, reader or admin", t.Role)
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", nil, fmt.Errorf("create token: %w", err)
	}
	secret := "oj_" + hex.EncodeToString(b)
	tok, err := scanToken(db.QueryRow(ctx, `INSERT INTO api_tokens (name, role, hash, submit_rate, submit_burst, max_live, run_max_live, created_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING `+tokenColumns,
		Text(t.Name), t.Role, HashToken(secret), t.SubmitRate, t.SubmitBurst, t.MaxLive, t.RunMaxLive, Text(t.CreatedBy)))
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "23505" {
			return "", nil, fmt.Errorf("create token %q: %w", t.Name, ErrTokenExists)
		}
		return "", nil, fmt.Errorf("create token: %w", err)
	}
	return secret, tok, nil
}

const tokenColumns = `id, name, role, submit_rate, submit_burst, max_live, run_max_live, created_by, created_at, revoked_at`

func scanToken(row pgx.Row) (*Token, error) {
	var t Token
	if err := row.Scan(&t.ID, &t.Name, &t.Role, &t.SubmitRate, &t.SubmitBurst, &t.MaxLive, &t.RunMaxLive, &t.CreatedBy,
		&t.CreatedAt, &t.RevokedAt); err != nil {
		return nil, err
	}
	return &t, nil
}

// Authenticate returns the live token whose secret this is.
func Authenticate(ctx context.Context, db DB, secret string) (*Token, error) {
	t, err := scanToken(db.QueryRow(ctx, `SELECT `+tokenColumns+` FROM api_tokens WHERE hash = $1 AND revoked_at IS NULL`,
		HashToken(secret)))
	if err != nil {
		return nil, translate(err, "authenticate")
	}
	return t, nil
}

// ListTokens lists every token, revoked ones included.
func ListTokens(ctx context.Context, db DB) ([]Token, error) {
	scan := func(rows pgx.Row, t *Token) error {
		return rows.Scan(&t.ID, &t.Name, &t.Role, &t.SubmitRate, &t.SubmitBurst, &t.MaxLive, &t.RunMaxLive, &t.CreatedBy,
			&t.CreatedAt, &t.RevokedAt)
	}
	return queryAll(ctx, db, "list tokens", scan, `SELECT `+tokenColumns+` FROM api_tokens ORDER BY id`)
}

// RevokeToken revokes the token called name.
func RevokeToken(ctx context.Context, db DB, name string) error {
	tag, err := db.Exec(ctx, `UPDATE api_tokens SET revoked_at = now() WHERE name = $1 AND revoked_at IS NULL`, name)
	if err != nil {
		return fmt.Errorf("revoke token: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("revoke token %q: %w", name, ErrNotFound)
	}
	return nil
}

// TokenName is the name of the token with this id, revoked or not (ErrNotFound when none
// has it): what an admin reads for a submission's owner_id.
func TokenName(ctx context.Context, db DB, id int64) (string, error) {
	var name string
	if err := db.QueryRow(ctx, `SELECT name FROM api_tokens WHERE id = $1`, id).Scan(&name); err != nil {
		return "", translate(err, "token name")
	}
	return name, nil
}
