package ops_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"oj/core/job"
	"oj/core/ops"
	"oj/core/store"
	"oj/core/testenv"
)

// dead makes a submission that dies on its only attempt, with cause as its error.
func dead(t *testing.T, db *pgxpool.Pool, cause string) string {
	t.Helper()
	ctx := context.Background()
	id, err := store.Submit(ctx, db, store.NewSubmission{ProblemID: "aplusb", ProblemVersion: 1,
		Language: "python3", Lane: job.LaneLight, Source: "print(1)", MaxAttempts: 1, TraceID: "trace-1"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	res, err := store.ClaimBatch(ctx, db, []string{id}, "w1", now, 30*time.Second, nil)
	if err != nil || res[0].Outcome != store.Claimed {
		t.Fatalf("claim: %+v %v", res, err)
	}
	st, err := store.EndAttempt(ctx, db, "w1", store.Lease{ID: id, Attempt: res[0].Attempt},
		store.Ending{Cause: cause, CountsAsFailure: true}, now)
	if err != nil || st != job.StateDead {
		t.Fatalf("end attempt: %s %v", st, err)
	}
	return id
}

func events(t *testing.T, db *pgxpool.Pool, id string, ev store.Event) []store.History {
	t.Helper()
	hist, err := store.SubmissionHistory(context.Background(), db, id)
	if err != nil {
		t.Fatal(err)
	}
	var out []store.History
	for _, h := range hist {
		if h.Event == ev {
			out = append(out, h)
		}
	}
	return out
}

// A purge removes dead letters and nothing else: the submissions stay dead with verdict
// SE and their error, each trace records who purged it, ids that are not dead letters
// are counted as requested only, a dry run removes nothing, and every call is audited.
func TestPurgeRemovesDeadLettersOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.DB(t)
	o := ops.New(db, testenv.Streams(t, testenv.RedisAddr(t)), nil, nil)
	a, b, c := dead(t, db, "sandbox exploded"), dead(t, db, "disk full"), dead(t, db, "oom")
	live := submit(t, db)

	got, err := o.Purge(ctx, ops.Request{Actor: "root", DryRun: true}, ops.PurgeParams{All: true})
	if want := (ops.PurgeCounts{Requested: 3, WouldPurge: 3}); err != nil || got != want {
		t.Fatalf("dry purge --all = %+v %v, want %+v", got, err, want)
	}
	if n, _ := store.CountDeadLetters(ctx, db); n != 3 {
		t.Fatalf("a dry run purged: %d dead letters left", n)
	}
	if h := events(t, db, a, store.EventPurged); len(h) != 0 {
		t.Fatalf("a dry run wrote history: %+v", h)
	}

	got, err = o.Purge(ctx, ops.Request{Actor: "root"}, ops.PurgeParams{IDs: []string{a, live}})
	if want := (ops.PurgeCounts{Requested: 2, Purged: 1}); err != nil || got != want {
		t.Fatalf("purge a, live = %+v %v, want %+v", got, err, want)
	}
	sub, err := store.GetSubmission(ctx, db, a)
	if err != nil || sub.State != job.StateDead || sub.Verdict != job.VerdictSE ||
		sub.LastError != "sandbox exploded" {
		t.Fatalf("purged submission = %+v %v, want dead SE with its error", sub, err)
	}
	if h := events(t, db, a, store.EventPurged); len(h) != 1 || h[0].Actor != "root" || h[0].Detail != "sandbox exploded" {
		t.Fatalf("purge history = %+v", h)
	}
	if s, _ := store.GetSubmission(ctx, db, live); s.State != job.StateQueued {
		t.Fatalf("a live submission changed: %s", s.State)
	}

	got, err = o.Purge(ctx, ops.Request{Actor: "cron"}, ops.PurgeParams{All: true})
	if want := (ops.PurgeCounts{Requested: 2, Purged: 2}); err != nil || got != want {
		t.Fatalf("purge --all = %+v %v, want %+v", got, err, want)
	}
	if n, _ := store.CountDeadLetters(ctx, db); n != 0 {
		t.Fatalf("%d dead letters left after purge --all", n)
	}
	for _, id := range []string{b, c} {
		if s, _ := store.GetSubmission(ctx, db, id); s.State != job.StateDead {
			t.Fatalf("%s is %s after the purge, want dead", id, s.State)
		}
		if h := events(t, db, id, store.EventPurged); len(h) != 1 || h[0].Actor != "cron" {
			t.Fatalf("purge history of %s = %+v", id, h)
		}
	}

	as := audits(t, db) // newest first
	if len(as) != 3 {
		t.Fatalf("audit rows = %+v, want 3", as)
	}
	for i, want := range []struct {
		actor                      string
		dry                        bool
		requested, purged, wouldBe float64
	}{{"cron", false, 2, 2, 0}, {"root", false, 2, 1, 0}, {"root", true, 3, 0, 3}} {
		r := as[i]
		if r.Action != "dlq_purge" || r.Actor != want.actor || r.DryRun != want.dry || r.Counts["requested"] != want.requested ||
			r.Counts["purged"] != want.purged || r.Counts["would_purge"] != want.wouldBe {
			t.Fatalf("audit row %d = %+v, want %+v", i, r, want)
		}
	}
	if as[1].Params["ids"] == nil || as[0].Params["all"] != true {
		t.Fatalf("audit params = %+v / %+v", as[1].Params, as[0].Params)
	}
}

// putProblem records version 1 of problem id.
func putProblem(t *testing.T, db *pgxpool.Pool, id string) {
	t.Helper()
	_, err := store.CreateProblemVersion(context.Background(), db, store.ProblemVersion{ProblemID: id,
		SHA256: "0000000000000000000000000000000000000000000000000000000000000001", Title: "T " + id,
		TimeLimitMS: 1000, MemoryLimitMB: 64, CaseCount: 2, CreatedBy: "admin"})
	if err != nil {
		t.Fatal(err)
	}
}

// A problem with submissions is archived (its versions stay, new submissions no longer
// see it, a rejudge of it still works, an upload brings it back), one without is deleted
// with its versions; a dry run changes nothing; each call is audited in its transaction;
// an unknown problem is an unaudited ErrNotFound.
func TestRemoveProblemArchivesOrDeletes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.DB(t)
	o := ops.New(db, testenv.Streams(t, testenv.RedisAddr(t)), nil, nil)
	putProblem(t, db, "aplusb")
	putProblem(t, db, "empty")
	done := dead(t, db, "x")
	_ = submit(t, db)

	for _, id := range []string{"aplusb", "empty"} {
		c, err := o.RemoveProblem(ctx, ops.Request{Actor: "root", DryRun: true}, id)
		if err != nil || (id == "aplusb") != (c.Action == store.ProblemArchived) {
			t.Fatalf("dry removal of %s = %+v %v", id, c, err)
		}
		if _, err := store.LatestProblem(ctx, db, id); err != nil {
			t.Fatalf("a dry run removed %s: %v", id, err)
		}
	}

	c, err := o.RemoveProblem(ctx, ops.Request{Actor: "root"}, "aplusb")
	if want := (ops.RemoveCounts{Action: store.ProblemArchived, Submissions: 2}); err != nil || c != want {
		t.Fatalf("removal of aplusb = %+v %v, want %+v", c, err, want)
	}
	if _, err := store.LatestProblem(ctx, db, "aplusb"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an archived problem is visible to submit: %v", err)
	}
	p, err := store.GetProblem(ctx, db, "aplusb")
	if err != nil || p.ArchivedAt == nil || p.Submissions != 2 || p.Version != 1 {
		t.Fatalf("archived problem = %+v %v", p, err)
	}
	first := *p.ArchivedAt
	if c, err := o.RemoveProblem(ctx, ops.Request{Actor: "root"}, "aplusb"); err != nil || c.Action != store.ProblemArchived {
		t.Fatalf("second removal = %+v %v", c, err)
	}
	if p, _ := store.GetProblem(ctx, db, "aplusb"); p.ArchivedAt == nil || !p.ArchivedAt.Equal(first) {
		t.Fatalf("a second removal moved archived_at: %+v, want %v", p, first)
	}
	if r, err := o.RejudgeProblem(ctx, ops.Request{Actor: "root"}, "aplusb"); err != nil || r.Rejudged != 1 {
		t.Fatalf("rejudge of an archived problem = %+v %v, want its dead submission %s rejudged", r, err, done)
	}

	c, err = o.RemoveProblem(ctx, ops.Request{Actor: "root"}, "empty")
	if want := (ops.RemoveCounts{Action: store.ProblemDeleted}); err != nil || c != want {
		t.Fatalf("removal of empty = %+v %v, want %+v", c, err, want)
	}
	if _, err := store.GetProblem(ctx, db, "empty"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a deleted problem is still there: %v", err)
	}
	var versions int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM problem_versions WHERE problem_id = 'empty'`).Scan(&versions); err != nil || versions != 0 {
		t.Fatalf("versions of a deleted problem = %d %v", versions, err)
	}
	before := len(audits(t, db))
	if _, err := o.RemoveProblem(ctx, ops.Request{Actor: "root"}, "empty"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("removal of a deleted problem: %v, want ErrNotFound", err)
	}
	if n := len(audits(t, db)); n != before {
		t.Fatalf("a removal of nothing was audited: %d → %d rows", before, n)
	}

	// An upload brings the archived problem back as a new, live version.
	putProblem(t, db, "aplusb")
	if pv, err := store.LatestProblem(ctx, db, "aplusb"); err != nil || pv.Version != 2 {
		t.Fatalf("re-uploaded problem = %+v %v, want live version 2", pv, err)
	}
	live, err := store.ListProblems(ctx, db, store.ArchivedProblems)
	if err != nil || len(live) != 0 {
		t.Fatalf("archived problems after the upload = %+v %v", live, err)
	}

	var removals []store.Audit
	for _, a := range audits(t, db) {
		if a.Action == "problem_remove" {
			removals = append(removals, a)
		}
	}
	if len(removals) != 5 {
		t.Fatalf("removal audit rows = %+v, want 5 (2 dry, 3 real)", removals)
	}
	last, firstDry := removals[0], removals[len(removals)-1]
	if last.DryRun || last.Params["problem_id"] != "empty" || last.Counts["action"] != "deleted" {
		t.Fatalf("last removal audit = %+v", last)
	}
	if !firstDry.DryRun || firstDry.Params["problem_id"] != "aplusb" || firstDry.Counts["action"] != "archived" ||
		firstDry.Counts["submissions"] != float64(2) {
		t.Fatalf("first (dry) removal audit = %+v", firstDry)
	}
}
