package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Token is an API token's record; the secret itself is never stored, only its SHA-256.
type Token struct {
	ID        int64
	Name      string
	Role      string
	CreatedAt time.Time
	RevokedAt *time.Time
}

// HashToken is how a presented token is looked up.
func HashToken(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// CreateToken makes a token for name with role (user or admin) and returns its secret,
// which is shown once.
func CreateToken(ctx context.Context, db DB, name, role string) (string, error) {
	if role != "user" && role != "admin" {
		return "", fmt.Errorf("create token: role %q: want user or admin", role)
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("create token: %w", err)
	}
	secret := "oj_" + hex.EncodeToString(b)
	if _, err := db.Exec(ctx, `INSERT INTO api_tokens (name, role, hash) VALUES ($1, $2, $3)`,
		name, role, HashToken(secret)); err != nil {
		return "", fmt.Errorf("create token: %w", err)
	}
	return secret, nil
}

// Authenticate returns the live token whose secret this is.
func Authenticate(ctx context.Context, db DB, secret string) (*Token, error) {
	var t Token
	err := db.QueryRow(ctx, `SELECT id, name, role, created_at FROM api_tokens WHERE hash = $1 AND revoked_at IS NULL`,
		HashToken(secret)).Scan(&t.ID, &t.Name, &t.Role, &t.CreatedAt)
	if err != nil {
		return nil, translate(err, "authenticate")
	}
	return &t, nil
}

// ListTokens lists every token, revoked ones included.
func ListTokens(ctx context.Context, db DB) ([]Token, error) {
	scan := func(rows pgx.Row, t *Token) error {
		return rows.Scan(&t.ID, &t.Name, &t.Role, &t.CreatedAt, &t.RevokedAt)
	}
	return queryAll(ctx, db, "list tokens", scan, `SELECT id, name, role, created_at, revoked_at FROM api_tokens ORDER BY id`)
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
