// Package migrations embeds the versioned PostgreSQL schema of oj and applies it with
// goose. `ojd migrate up|status` and the tests are its only callers.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io"

	"github.com/pressly/goose/v3"
)

//go:embed *.sql
var files embed.FS

func provider(db *sql.DB) (*goose.Provider, error) {
	p, err := goose.NewProvider(goose.DialectPostgres, db, files)
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	return p, nil
}

// Up applies every pending migration.
func Up(ctx context.Context, db *sql.DB) error {
	p, err := provider(db)
	if err != nil {
		return err
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate up: %w", err)
	}
	return nil
}

// Status writes one line per migration: version, applied or pending, and when.
func Status(ctx context.Context, db *sql.DB, w io.Writer) error {
	p, err := provider(db)
	if err != nil {
		return err
	}
	st, err := p.Status(ctx)
	if err != nil {
		return fmt.Errorf("migrate status: %w", err)
	}
	for _, s := range st {
		when := "pending"
		if s.State == goose.StateApplied {
			when = "applied " + s.AppliedAt.Format("2006-01-02 15:04:05")
		}
		fmt.Fprintf(w, "%05d  %-40s %s\n", s.Source.Version, s.Source.Path, when)
	}
	return nil
}
