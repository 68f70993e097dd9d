package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Audit is one audited admin action (invariant 8).
type Audit struct {
	ID     int64
	At     time.Time
	Actor  string
	Action string
	DryRun bool
	Params map[string]any
	Counts map[string]any
}

// AddAudit records an admin action with its parameters and counts.
func AddAudit(ctx context.Context, db DB, a Audit) error {
	params, err := jsonValue(a.Params)
	if err != nil {
		return fmt.Errorf("add audit: %w", err)
	}
	counts, err := jsonValue(a.Counts)
	if err != nil {
		return fmt.Errorf("add audit: %w", err)
	}
	_, err = db.Exec(ctx, `INSERT INTO audit_log (actor, action, dry_run, params, counts) VALUES ($1, $2, $3, $4, $5)`,
		a.Actor, a.Action, a.DryRun, params, counts)
	if err != nil {
		return fmt.Errorf("add audit: %w", err)
	}
	return nil
}

// ListAudit returns the newest limit audit rows, newest first.
func ListAudit(ctx context.Context, db DB, limit int) ([]Audit, error) {
	scan := func(rows pgx.Row, a *Audit) error {
		var params, counts []byte
		if err := rows.Scan(&a.ID, &a.At, &a.Actor, &a.Action, &a.DryRun, &params, &counts); err != nil {
			return err
		}
		if err := json.Unmarshal(params, &a.Params); err != nil {
			return err
		}
		return json.Unmarshal(counts, &a.Counts)
	}
	return queryAll(ctx, db, "list audit", scan, `SELECT id, at, actor, action, dry_run, params, counts FROM audit_log
		ORDER BY at DESC, id DESC LIMIT $1`, limit)
}
