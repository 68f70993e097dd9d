package store_test

import (
	"context"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/store"
	"oj/core/testenv"
)

// Two hand-backs of one submission (its entry read by a worker and reclaimed by another,
// both without its language) write one job row: the second waits for the first's lock
// and then sees the row it committed.
func TestHandBackTwiceAtOnceWritesOneRow(t *testing.T) {
	t.Parallel()
	db := testenv.DB(t)
	ctx := context.Background()
	id := submit(t, db, 3)
	if _, err := db.Exec(ctx, `UPDATE outbox SET delivered_at = now() WHERE submission_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	// The first hand-back, held open with the submission locked and its row written.
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT 1 FROM submissions WHERE id = $1 FOR UPDATE`, id); err != nil {
		t.Fatal(err)
	}
	if err := store.EnqueueJob(ctx, tx, id, job.LaneLight, "t", 0); err != nil {
		t.Fatal(err)
	}
	second := make(chan error, 1)
	go func() {
		handed, err := store.HandBack(ctx, db, id, 0)
		if err == nil && handed {
			t.Error("the second hand-back wrote a row although the first had")
		}
		second <- err
	}()
	// Commit only once the second waits for the lock.
	deadline := time.Now().Add(30 * time.Second)
	for count(t, db, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FROM submissions%FOR UPDATE%' AND pid <> pg_backend_pid()`) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the second hand-back never waited for the lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM outbox WHERE submission_id = $1 AND kind = 'job' AND delivered_at IS NULL`, id); n != 1 {
		t.Fatalf("%d waiting job rows, want 1", n)
	}
}
