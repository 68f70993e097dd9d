package ops_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"oj/core/job"
	"oj/core/ops"
	"oj/core/store"
	"oj/core/stream"
	"oj/core/testenv"
)

func submit(t *testing.T, db *pgxpool.Pool) string {
	t.Helper()
	id, err := store.Submit(context.Background(), db, store.NewSubmission{ProblemID: "aplusb", ProblemVersion: 1,
		Language: "python3", Lane: job.LaneLight, Source: "print(1)", MaxAttempts: 3, TraceID: "trace-1"})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func audits(t *testing.T, db *pgxpool.Pool) []store.Audit {
	t.Helper()
	as, err := store.ListAudit(context.Background(), db, 100)
	if err != nil {
		t.Fatal(err)
	}
	return as
}

// Malformed pending entries (no submission id, not a UUID) never reach PostgreSQL: admin
// reclaim counts them as dropped — a dry run without touching them, a real run acking and
// deleting them as the workers do — and decides the well-formed entry next to them.
func TestReclaimDropsMalformedEntries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.DB(t)
	st := testenv.Streams(t, testenv.RedisAddr(t))
	o := ops.New(db, st, nil, nil)
	if err := st.EnsureGroup(ctx, job.LaneLight); err != nil {
		t.Fatal(err)
	}
	key := st.Keys.Jobs(job.LaneLight)
	id := submit(t, db)
	for _, v := range [][]any{{stream.FieldSubmission, id}, {stream.FieldTrace, "no id"},
		{stream.FieldSubmission, "1; DROP TABLE submissions"}, {stream.FieldSubmission, "\x00"},
		{stream.FieldSubmission, "0189ZZZZ-0000-7000-8000-000000000000"}} {
		if err := st.Client().XAdd(ctx, &redis.XAddArgs{Stream: key, Values: v}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// Delivered to a consumer that is gone: pending, idle.
	if _, err := st.Read(ctx, job.LaneLight, "gone", 100, 10*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	p := ops.ReclaimParams{Lane: job.LaneLight}
	want := ops.ReclaimCounts{Examined: 5, Reclaimed: 1, Dropped: 4}
	dry, err := o.Reclaim(ctx, ops.Request{Actor: "root", DryRun: true}, p)
	if wantDry := (ops.ReclaimCounts{Examined: 5, WouldReclaim: 1, Dropped: 4}); err != nil || dry != wantDry {
		t.Fatalf("dry reclaim = %+v %v, want %+v", dry, err, wantDry)
	}
	if n, _ := st.Client().XLen(ctx, key).Result(); n != 5 {
		t.Fatalf("a dry run changed the stream: length %d", n)
	}
	got, err := o.Reclaim(ctx, ops.Request{Actor: "root"}, p)
	if err != nil || got != want {
		t.Fatalf("reclaim = %+v %v, want %+v", got, err, want)
	}
	if n, _ := st.Client().XLen(ctx, key).Result(); n != 1 {
		t.Fatalf("stream length %d after reclaim, want 1: malformed entries were not deleted", n)
	}
	if pend, err := st.Pending(ctx, job.LaneLight, 0, "-", 100); err != nil || len(pend) != 0 {
		t.Fatalf("still pending after reclaim: %+v %v", pend, err)
	}
	as := audits(t, db)
	if len(as) != 2 || as[0].Action != "reclaim" || as[0].DryRun || as[0].Counts["dropped"] != float64(4) ||
		!as[1].DryRun || as[1].Actor != "root" {
		t.Fatalf("audit rows = %+v", as)
	}
}

// Invariant 8 in one place: a cancel writes its audit row in its own transaction, a dry
// run changes nothing but is audited, a refusal is audited as refused, and what does not
// exist is an error that changes nothing.
func TestCancelIsAuditedWithItsTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.DB(t)
	o := ops.New(db, testenv.Streams(t, testenv.RedisAddr(t)), nil, nil)
	id := submit(t, db)
	if c, err := o.Cancel(ctx, ops.Request{Actor: "root", DryRun: true}, id); err != nil || c != (ops.CancelCounts{WouldCancel: 1}) {
		t.Fatalf("dry cancel = %+v %v", c, err)
	}
	if s, _ := store.GetSubmission(ctx, db, id); s.State != job.StateQueued {
		t.Fatalf("a dry run canceled: %s", s.State)
	}
	if c, err := o.Cancel(ctx, ops.Request{Actor: "root"}, id); err != nil || c.Canceled != 1 {
		t.Fatalf("cancel = %+v %v", c, err)
	}
	if c, err := o.Cancel(ctx, ops.Request{Actor: "root"}, id); !errors.Is(err, store.ErrConflict) || c.Canceled != 0 {
		t.Fatalf("second cancel = %+v %v, want ErrConflict", c, err)
	}
	if _, err := o.Cancel(ctx, ops.Request{Actor: "root"}, "01890000-0000-7000-8000-000000000000"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("cancel of nothing: %v", err)
	}
	as := audits(t, db) // newest first
	if len(as) != 3 {
		t.Fatalf("audit rows = %+v, want 3", as)
	}
	if as[0].Counts["refused"] == nil || as[0].Counts["canceled"] != float64(0) {
		t.Fatalf("refusal audit = %+v", as[0])
	}
	if as[1].DryRun || as[1].Counts["canceled"] != float64(1) || as[1].Counts["would_cancel"] != float64(0) ||
		as[1].Params["submission_id"] != id {
		t.Fatalf("cancel audit = %+v", as[1])
	}
	// A dry run canceled nothing: its row says so, and what it would have done.
	if !as[2].DryRun || as[2].Counts["canceled"] != float64(0) || as[2].Counts["would_cancel"] != float64(1) {
		t.Fatalf("dry cancel audit = %+v", as[2])
	}
}
