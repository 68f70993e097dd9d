package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"oj/core/job"
	"oj/core/store"
	"oj/core/testenv"
)

// since=now's cursor: a follower that resumes from it — having dropped before its first
// event — is handed nothing that committed before the call, even when a transaction
// that was open at the call (and wrote no event, or one that commits after the call)
// held the head below it; and it never skips an event that committed after the call.
func TestFeedNowResumesWithNothingOlderThanTheCall(t *testing.T) {
	t.Parallel()
	db := testenv.DB(t)
	ctx := context.Background()
	begin := func() pgx.Tx {
		tx, err := db.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tx.Rollback(ctx) })
		return tx
	}
	// now calls FeedNow while tx is open, and ends tx once the call is under way; the
	// outcome must not depend on which of the two PostgreSQL saw first.
	now := func(tx pgx.Tx) store.Cursor {
		type result struct {
			c   store.Cursor
			err error
		}
		got := make(chan result, 1)
		go func() {
			c, _, err := store.FeedNow(ctx, db, time.Minute)
			got <- result{c, err}
		}()
		time.Sleep(100 * time.Millisecond)
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		r := <-got
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.c
	}
	ids := func(p store.FeedPage) []string {
		var s []string
		for _, e := range p.Events {
			s = append(s, e.SubmissionID)
		}
		return s
	}

	t.Run("an open transaction without events", func(t *testing.T) {
		hold := begin()
		if _, err := hold.Exec(ctx, `SELECT pg_current_xact_id()`); err != nil {
			t.Fatal(err)
		}
		b := submit(t, db, 3) // committed before the call, above hold's txid
		c := now(hold)
		d := submit(t, db, 3)
		if got := ids(feedUntil(t, db, c, store.FeedFilter{}, 1)); !equal(got, []string{d}) {
			t.Fatalf("resumed from since=now's cursor %s: %v, want [%s] (not %s, committed before the call)", c, got, d, b)
		}
	})
	t.Run("an open transaction that commits an event after the call", func(t *testing.T) {
		txA := begin()
		a, err := store.InsertSubmission(ctx, txA, store.NewSubmission{ProblemID: "p", ProblemVersion: 1,
			Language: "c11", Lane: job.LaneHeavy, Source: "x", TraceID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		submit(t, db, 3) // committed before the call, after a in feed order: may come back, never a
		c := now(txA)
		d := submit(t, db, 3)
		got := ids(feedUntil(t, db, c, store.FeedFilter{}, 2))
		if len(got) == 2 && got[1] != d { // the one committed before the call came back: d follows it
			got = ids(feedUntil(t, db, c, store.FeedFilter{}, 3))
		}
		if len(got) < 2 || got[0] != a || got[len(got)-1] != d {
			t.Fatalf("resumed from since=now's cursor %s: %v, want %s first and %s last", c, got, a, d)
		}
	})
}
