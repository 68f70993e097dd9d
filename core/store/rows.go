package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// queryAll runs a query on db and scans each row into a T with scan: the one loop over
// rows of the store's list queries. what names the query in errors.
func queryAll[T any](ctx context.Context, db DB, what string, scan func(row pgx.Row, v *T) error, sql string, args ...any) ([]T, error) {
	rows, err := db.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := scan(rows, &v); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// keyed reads a two-column result (text key, value) into a map.
func keyed[V any](ctx context.Context, db DB, what, sql string, args ...any) (map[string]V, error) {
	type kv struct {
		k string
		v V
	}
	rows, err := queryAll(ctx, db, what, func(row pgx.Row, p *kv) error { return row.Scan(&p.k, &p.v) }, sql, args...)
	if err != nil {
		return nil, err
	}
	out := make(map[string]V, len(rows))
	for _, p := range rows {
		out[p.k] = p.v
	}
	return out, nil
}

// collectStrings reads a one-column text result.
func collectStrings(rows pgx.Rows, what string) ([]string, error) {
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}
