package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/store"
	"oj/core/testenv"
)

// A run takes the submissions' path but is scratch: no feed event, no place in a user's
// list, the backlog or the state counts; its results (any bytes a program wrote) are
// stored with a fenced finalize; it is read as a run only; and retention deletes it with
// its history and outbox rows, leaving submissions alone.
func TestRunsAreScratch(t *testing.T) {
	t.Parallel()
	db := testenv.DB(t)
	ctx := context.Background()
	var owner int64
	if err := db.QueryRow(ctx, `INSERT INTO api_tokens (name, role, hash) VALUES ('alice', 'user', '\x01') RETURNING id`).Scan(&owner); err != nil {
		t.Fatal(err)
	}
	spec, notes := job.DefaultRunsConfig().Spec([]string{"1\n", "2\n"}, 99_999, 0)
	if spec.TimeMS != 10_000 || spec.MemoryMB != 256 || len(notes) != 1 {
		t.Fatalf("spec %+v, notes %v", spec, notes)
	}
	run, err := store.SubmitRun(ctx, db, store.NewRun{OwnerID: &owner, Language: "python3", Source: "print(input())",
		Spec: spec, TraceID: "t", MaxQueued: 5})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := store.Submit(ctx, db, store.NewSubmission{OwnerID: &owner, ProblemID: "aplusb", ProblemVersion: 1,
		Language: "python3", Lane: job.LaneLight, Source: "print(1)", TraceID: "t"})
	if err != nil {
		t.Fatal(err)
	}

	if n := count(t, db, `SELECT count(*) FROM events WHERE submission_id = $1`, run); n != 0 {
		t.Fatalf("%d feed events for a run", n)
	}
	if n := count(t, db, `SELECT count(*) FROM events WHERE submission_id = $1`, sub); n != 1 {
		t.Fatalf("%d feed events for a submission, want 1", n)
	}
	list, err := store.ListSubmissions(ctx, db, store.SubmissionFilter{OwnerID: &owner, Limit: 10})
	if err != nil || len(list) != 1 || list[0].ID != sub {
		t.Fatalf("the owner's list: %+v %v", list, err)
	}
	if n, _, err := store.QueueStats(ctx, db); err != nil || n != 1 {
		t.Fatalf("queued submissions: %d %v", n, err)
	}
	if n, err := store.QueuedRuns(ctx, db); err != nil || n != 1 {
		t.Fatalf("queued runs: %d %v", n, err)
	}
	if _, err := store.SubmitRun(ctx, db, store.NewRun{Language: "python3", Source: "x", Spec: spec, TraceID: "t",
		MaxQueued: 1}); !errors.As(err, new(*store.RunsBacklogError)) {
		t.Fatalf("a run over the queued cap: %v", err)
	}

	now := time.Now()
	res, err := store.ClaimBatch(ctx, db, []string{run}, "w", now, 30*time.Second, nil)
	if err != nil || res[0].Outcome != store.Claimed {
		t.Fatalf("claim: %+v %v", res, err)
	}
	task := res[0].Task
	if task.Kind != job.KindRun || task.Run == nil || len(task.Run.Stdins) != 2 || task.Run.Stdins[1] != "2\n" || task.Lane != job.LaneRun {
		t.Fatalf("claimed task: %+v", task)
	}
	results := []job.RunResult{{Index: 1, Status: job.RunOK, Stdout: "1\n"}, {Index: 2, Status: job.RunRE, ExitCode: 1, Stdout: "a\x00b", Stderr: "boom"}}
	errs, err := store.FinalizeBatch(ctx, db, "w", []store.Result{{Lease: store.Lease{ID: run, Attempt: task.Attempt},
		Outcome: job.Outcome{Runs: results}}}, now)
	if err != nil || errs[0] != nil {
		t.Fatalf("finalize: %v %v", errs, err)
	}
	got, err := store.GetRun(ctx, db, run)
	if err != nil || got.State != job.StateFinished || got.Verdict != "" || len(got.RunResults) != 2 ||
		got.RunResults[1].Stdout != "a\x00b" || got.RunResults[1].Stderr != "boom" || got.Run.TimeMS != 10_000 {
		t.Fatalf("run: %+v %v", got, err)
	}
	if _, err := store.GetRun(ctx, db, sub); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a submission read as a run: %v", err)
	}
	counts, err := store.RunCounts(ctx, db)
	if err != nil || counts[job.StateFinished] != 1 {
		t.Fatalf("run counts: %v %v", counts, err)
	}

	if n, err := store.PruneRuns(ctx, db, time.Hour, now, 100); err != nil || n != 0 {
		t.Fatalf("pruned a young run: %d %v", n, err)
	}
	if n, err := store.PruneRuns(ctx, db, time.Hour, now.Add(2*time.Hour), 100); err != nil || n != 1 {
		t.Fatalf("prune: %d %v", n, err)
	}
	if n := count(t, db, `SELECT count(*) FROM submission_history WHERE submission_id = $1`, run) +
		count(t, db, `SELECT count(*) FROM outbox WHERE submission_id = $1`, run); n != 0 {
		t.Fatalf("%d rows of a pruned run left", n)
	}
	if _, err := store.GetRun(ctx, db, run); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a pruned run: %v", err)
	}
	if _, err := store.GetSubmission(ctx, db, sub); err != nil {
		t.Fatalf("the submission after pruning: %v", err)
	}
}

// Retention deletes only ended runs: a queued run and a running one older than the
// retention survive the prune (each is still owed its judgment), and a finished one goes.
func TestRunRetentionKeepsUnfinishedRuns(t *testing.T) {
	t.Parallel()
	db := testenv.DB(t)
	ctx := context.Background()
	spec, _ := job.DefaultRunsConfig().Spec([]string{""}, 0, 0)
	submit := func() string {
		id, err := store.SubmitRun(ctx, db, store.NewRun{Language: "python3", Source: "print(1)", Spec: spec, TraceID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	queued, running, finished := submit(), submit(), submit()
	now := time.Now()
	res, err := store.ClaimBatch(ctx, db, []string{running, finished}, "w", now, time.Hour, nil)
	if err != nil || res[0].Outcome != store.Claimed || res[1].Outcome != store.Claimed {
		t.Fatalf("claim: %+v %v", res, err)
	}
	errs, err := store.FinalizeBatch(ctx, db, "w", []store.Result{{Lease: store.Lease{ID: finished, Attempt: res[1].Task.Attempt},
		Outcome: job.Outcome{Runs: []job.RunResult{{Index: 1, Status: job.RunOK}}}}}, now)
	if err != nil || errs[0] != nil {
		t.Fatalf("finalize: %v %v", errs, err)
	}
	later := now.Add(3 * time.Hour)
	if n, err := store.PruneRuns(ctx, db, time.Hour, later, 100); err != nil || n != 1 {
		t.Fatalf("prune: %d %v, want the finished run alone", n, err)
	}
	for _, id := range []string{queued, running} {
		got, err := store.GetRun(ctx, db, id)
		if err != nil {
			t.Fatalf("run %s (not ended) after the prune: %v", id, err)
		}
		if got.State.Terminal() {
			t.Fatalf("run %s: %s", id, got.State)
		}
	}
	if _, err := store.GetRun(ctx, db, finished); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the finished run after the prune: %v", err)
	}
}
