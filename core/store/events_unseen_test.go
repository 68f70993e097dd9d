package store_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"oj/core/job"
	"oj/core/store"
	"oj/core/testenv"
)

// The head stops short of an event that committed while an older transaction was still
// open; following from the head with Unseen set to the snapshot it was read in leaves
// that event out (it committed before the read) and keeps the older transaction's event,
// which commits after the read, and every later one.
func TestFeedUnseenLeavesOutWhatCommittedBeforeTheRead(t *testing.T) {
	t.Parallel()
	db := testenv.DB(t)
	ctx := context.Background()
	insert := func(tx pgx.Tx) string {
		id, err := store.InsertSubmission(ctx, tx, store.NewSubmission{ProblemID: "p", ProblemVersion: 1,
			Language: "c11", Lane: job.LaneHeavy, Source: "x", TraceID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	txA, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer txA.Rollback(ctx)
	a := insert(txA) // open across the read: commits after it
	b := submit(t, db, 3)
	bounds, err := store.ReadFeedBounds(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if bounds.Snapshot == "" {
		t.Fatal("no snapshot")
	}
	if err := txA.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	c := submit(t, db, 3)
	var seen []string
	for _, e := range feedUntil(t, db, bounds.Head, store.FeedFilter{Unseen: bounds.Snapshot}, 2).Events {
		seen = append(seen, e.SubmissionID)
	}
	if !equal(seen, []string{a, c}) {
		t.Fatalf("from the head with Unseen: %v, want [%s %s] (not %s, committed before the read)", seen, a, c, b)
	}
	// Without it, the head alone lets b through: what Unseen is for.
	seen = nil
	for _, e := range feedUntil(t, db, bounds.Head, store.FeedFilter{}, 3).Events {
		seen = append(seen, e.SubmissionID)
	}
	if !equal(seen, []string{a, b, c}) {
		t.Fatalf("from the head: %v, want [%s %s %s]", seen, a, b, c)
	}
}
