package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"oj/core/job"
)

// AnnounceWorker records that worker name is alive and judges, at once, up to lanes[l]
// submissions of each lane l. A worker announces itself at start and with every
// heartbeat; the dispatcher sizes each lane's release window from the live ones.
func AnnounceWorker(ctx context.Context, db DB, name string, lanes map[string]int) error {
	b, err := json.Marshal(lanes)
	if err != nil {
		return fmt.Errorf("announce worker: %w", err)
	}
	_, err = db.Exec(ctx, `INSERT INTO workers (name, lanes) VALUES ($1, $2)
		ON CONFLICT (name) DO UPDATE SET lanes = excluded.lanes, last_seen = now()`, Text(name), b)
	if err != nil {
		return fmt.Errorf("announce worker: %w", err)
	}
	return nil
}

// WorkerGone removes a stopped worker's row.
func WorkerGone(ctx context.Context, db DB, name string) error {
	if _, err := db.Exec(ctx, `DELETE FROM workers WHERE name = $1`, Text(name)); err != nil {
		return fmt.Errorf("worker gone: %w", err)
	}
	return nil
}

// LaneSlots sums, per lane, the slots of the workers seen within the last within: how
// many submissions of each lane the live workers judge at once. A worker killed without
// a word drops out once within has passed.
func LaneSlots(ctx context.Context, db DB, within time.Duration) (map[job.Lane]int, error) {
	rows, err := db.Query(ctx, `SELECT l.key, sum(l.value::int)
		  FROM workers w, jsonb_each_text(w.lanes) l
		 WHERE w.last_seen > now() - $1 * interval '1 microsecond'
		 GROUP BY l.key`, within.Microseconds())
	if err != nil {
		return nil, fmt.Errorf("lane slots: %w", err)
	}
	defer rows.Close()
	out := map[job.Lane]int{}
	for rows.Next() {
		var lane string
		var n int
		if err := rows.Scan(&lane, &n); err != nil {
			return nil, fmt.Errorf("lane slots: %w", err)
		}
		out[job.Lane(lane)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("lane slots: %w", err)
	}
	return out, nil
}

// RunningInLane counts lane's submissions being judged now (state running): the slots
// its workers have taken. A submission whose worker died without a word counts until its
// lease ends and it is claimed again.
func RunningInLane(ctx context.Context, db DB, lane job.Lane) (int, error) {
	var n int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM submissions WHERE state = 'running' AND lane = $1`,
		string(lane)).Scan(&n); err != nil {
		return 0, fmt.Errorf("running in %s: %w", lane, err)
	}
	return n, nil
}
