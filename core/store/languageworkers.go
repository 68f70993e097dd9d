package store

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// LanguageWorkers is one language's live workers (seen within WorkerLiveWithin, not
// stopped) by state: what tells an operator that the last worker of a language went
// quiet or set itself apart.
type LanguageWorkers struct {
	Language string
	// States counts the live workers that announce the language, by state.
	States map[WorkerState]int
	// Names are those workers' names, by state, sorted.
	Names map[WorkerState][]string
}

// Live counts the language's live workers in any state.
func (l LanguageWorkers) Live() int {
	n := 0
	for _, c := range l.States {
		n += c
	}
	return n
}

// LiveLanguageWorkers counts, per language announced by a live worker, the live workers
// by state. A worker that announced no languages (any) is counted under language "".
func LiveLanguageWorkers(ctx context.Context, db DB) (map[string]LanguageWorkers, error) {
	type row struct {
		language string
		state    WorkerState
		names    []string
	}
	scan := func(rows pgx.Row, r *row) error { return rows.Scan(&r.language, &r.state, &r.names) }
	rows, err := queryAll(ctx, db, "live language workers", scan, `SELECT coalesce(lang, ''), state, array_agg(name ORDER BY name)
		  FROM workers LEFT JOIN LATERAL unnest(languages) AS lang ON true
		 WHERE stopped_at IS NULL AND last_seen > now() - $1 * interval '1 microsecond'
		 GROUP BY 1, 2`, WorkerLiveWithin.Microseconds())
	if err != nil {
		return nil, err
	}
	out := map[string]LanguageWorkers{}
	for _, r := range rows {
		l, ok := out[r.language]
		if !ok {
			l = LanguageWorkers{Language: r.language, States: map[WorkerState]int{}, Names: map[WorkerState][]string{}}
		}
		l.States[r.state] += len(r.names)
		l.Names[r.state] = append(l.Names[r.state], r.names...)
		out[r.language] = l
	}
	return out, nil
}
