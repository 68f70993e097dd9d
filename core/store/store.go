// Package store is oj's PostgreSQL boundary: creating a submission together with its
// outbox row, claiming with an attempt number and a lease, heartbeats, the fenced
// finalize, retries and dead letters, the outbox relay's queries, history and audit.
//
// Every function takes the connection or transaction it runs in (a DB), so callers decide
// what shares a transaction. Time comes from the caller (a clock), never from now() in
// SQL, wherever it decides a lease or a backoff: tests move a fake clock instead of
// sleeping. Zero-row fenced updates are translated into the typed reasons below.
package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DB is what every store function runs on: a pool, a connection or a transaction.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Errors returned by the store. The fence errors explain why a fenced update matched no
// row (invariant 4); check them with errors.Is.
var (
	ErrNotFound        = errors.New("not found")
	ErrStaleAttempt    = errors.New("stale attempt")
	ErrAlreadyTerminal = errors.New("already terminal")
	ErrLeaseLost       = errors.New("lease lost")
	// ErrConflict is a state that forbids the operation (e.g. cancel of a finished submission).
	ErrConflict = errors.New("conflict")
)

// Reason names a fence error for logs and metric labels: stale_attempt, already_terminal,
// lease_lost, not_found, or "" for nil and other errors.
func Reason(err error) string {
	switch {
	case errors.Is(err, ErrStaleAttempt):
		return "stale_attempt"
	case errors.Is(err, ErrAlreadyTerminal):
		return "already_terminal"
	case errors.Is(err, ErrLeaseLost):
		return "lease_lost"
	case errors.Is(err, ErrNotFound):
		return "not_found"
	}
	return ""
}

// InTx runs fn in a transaction on db, committing when fn returns nil.
func InTx(ctx context.Context, db DB, fn func(tx pgx.Tx) error) error {
	if err := pgx.BeginFunc(ctx, db, fn); err != nil {
		return err
	}
	return nil
}

func translate(err error, what string) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// InDryTx runs fn in a transaction on db like InTx, but with dryRun the transaction is
// rolled back once fn succeeded: a dry run does everything the action would do, counts
// included, and leaves nothing (invariant 8). fn's error is returned either way.
func InDryTx(ctx context.Context, db DB, dryRun bool, fn func(tx pgx.Tx) error) error {
	err := InTx(ctx, db, func(tx pgx.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		if dryRun {
			return errRollback
		}
		return nil
	})
	if errors.Is(err, errRollback) {
		return nil
	}
	return err
}

// errRollback ends a transaction without committing (dry runs) and is never returned.
var errRollback = errors.New("rollback")
