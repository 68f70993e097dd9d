package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// LanguageNames reads the language names the workers seen within the last within
// announced (id → name, with the version their self-checks detected). Workers that
// disagree (a rolling upgrade of a toolchain) give the name of the one seen last.
func LanguageNames(ctx context.Context, db DB, within time.Duration) (map[string]string, error) {
	type row struct{ id, name string }
	scan := func(rows pgx.Row, r *row) error { return rows.Scan(&r.id, &r.name) }
	rows, err := queryAll(ctx, db, "language names", scan, `SELECT DISTINCT ON (n.key) n.key, n.value
		  FROM workers w, jsonb_each_text(w.language_names) n
		 WHERE w.stopped_at IS NULL AND w.last_seen > now() - $1 * interval '1 microsecond'
		 ORDER BY n.key, w.last_seen DESC`, within.Microseconds())
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.id] = Text(r.name)
	}
	return out, nil
}
