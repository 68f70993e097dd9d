package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"oj/core/job"
	"oj/core/store"
	"oj/core/testenv"
)

func submit(t *testing.T, db *pgxpool.Pool, maxAttempts int) string {
	t.Helper()
	id, err := store.Submit(context.Background(), db, store.NewSubmission{ProblemID: "aplusb", ProblemVersion: 1,
		Language: "python3", Lane: job.LaneLight, Source: "print(1)", MaxAttempts: maxAttempts, TraceID: "trace-1"})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func count(t *testing.T, db *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Invariant 2: the submission and its outbox row commit together or not at all.
func TestSubmitIsOneTransaction(t *testing.T) {
	t.Parallel()
	db := testenv.DB(t)
	ctx := context.Background()
	id := submit(t, db, 3)
	if n := count(t, db, `SELECT count(*) FROM outbox WHERE submission_id = $1 AND kind = 'job' AND delivered_at IS NULL`, id); n != 1 {
		t.Fatalf("outbox rows for a new submission = %d, want 1", n)
	}
	// A submission the database refuses (bad lane) leaves neither row behind.
	_, err := store.Submit(ctx, db, store.NewSubmission{ProblemID: "aplusb", ProblemVersion: 1, Language: "x",
		Lane: job.Lane("bogus"), Source: "x", TraceID: "t"})
	if err == nil {
		t.Fatal("submit with a bad lane succeeded")
	}
	if n := count(t, db, `SELECT count(*) FROM submissions`); n != 1 {
		t.Fatalf("submissions = %d after a failed submit, want 1", n)
	}
	if n := count(t, db, `SELECT count(*) FROM outbox`); n != 1 {
		t.Fatalf("outbox rows = %d after a failed submit, want 1", n)
	}
}

func TestFenceReasons(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Now()
	lease := 30 * time.Second
	outcome := job.Outcome{Verdict: job.VerdictAC, Score: 100}
	tests := []struct {
		name  string
		setup func(t *testing.T, db *pgxpool.Pool, id string) (owner string, l store.Lease, at time.Time)
		want  error
	}{
		{"own live lease writes", func(t *testing.T, db *pgxpool.Pool, id string) (string, store.Lease, time.Time) {
			return "w1", claim(t, db, id, "w1", now), now.Add(time.Second)
		}, nil},
		{"stale attempt after a reclaim", func(t *testing.T, db *pgxpool.Pool, id string) (string, store.Lease, time.Time) {
			l := claim(t, db, id, "w1", now)
			claim(t, db, id, "w2", now.Add(lease+time.Second))
			return "w1", l, now.Add(lease + 2*time.Second)
		}, store.ErrStaleAttempt},
		{"lease lost when it expired unclaimed", func(t *testing.T, db *pgxpool.Pool, id string) (string, store.Lease, time.Time) {
			return "w1", claim(t, db, id, "w1", now), now.Add(lease + time.Second)
		}, store.ErrLeaseLost},
		{"another owner's lease", func(t *testing.T, db *pgxpool.Pool, id string) (string, store.Lease, time.Time) {
			return "w9", claim(t, db, id, "w1", now), now.Add(time.Second)
		}, store.ErrLeaseLost},
		{"already terminal", func(t *testing.T, db *pgxpool.Pool, id string) (string, store.Lease, time.Time) {
			l := claim(t, db, id, "w1", now)
			errs, err := store.FinalizeBatch(ctx, db, "w1", []store.Result{{Lease: l, Outcome: outcome}}, now)
			if err != nil || errs[0] != nil {
				t.Fatalf("first finalize: %v %v", err, errs)
			}
			return "w1", l, now.Add(time.Second)
		}, store.ErrAlreadyTerminal},
		{"canceled: attempt bumped", func(t *testing.T, db *pgxpool.Pool, id string) (string, store.Lease, time.Time) {
			l := claim(t, db, id, "w1", now)
			if err := store.Cancel(ctx, db, id, "admin", now); err != nil {
				t.Fatal(err)
			}
			return "w1", l, now.Add(time.Second)
		}, store.ErrStaleAttempt},
		{"not found", func(t *testing.T, db *pgxpool.Pool, id string) (string, store.Lease, time.Time) {
			return "w1", store.Lease{ID: "00000000-0000-0000-0000-000000000001", Attempt: 1}, now
		}, store.ErrNotFound},
	}
	db := testenv.DB(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := submit(t, db, 3)
			owner, l, at := tc.setup(t, db, id)
			errs, err := store.FinalizeBatch(ctx, db, owner, []store.Result{{Lease: l, Outcome: outcome}}, at)
			if err != nil {
				t.Fatal(err)
			}
			if !errors.Is(errs[0], tc.want) && !(tc.want == nil && errs[0] == nil) {
				t.Fatalf("finalize: got %v, want %v", errs[0], tc.want)
			}
			if tc.want == nil {
				s, err := store.GetSubmission(ctx, db, id)
				if err != nil || s.State != job.StateFinished || s.Verdict != job.VerdictAC || s.LeaseOwner != "" {
					t.Fatalf("after finalize: %+v %v", s, err)
				}
			}
		})
	}
}

func claim(t *testing.T, db *pgxpool.Pool, id, owner string, now time.Time) store.Lease {
	t.Helper()
	res, err := store.ClaimBatch(context.Background(), db, []string{id}, owner, now, 30*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Outcome != store.Claimed {
		t.Fatalf("claim by %s: %v", owner, res[0].Outcome)
	}
	return store.Lease{ID: id, Attempt: res[0].Attempt}
}

// Invariant 3 and 6: a claim bumps the attempt and takes a lease; a live lease is not
// taken over, an expired one is, with a new attempt.
func TestClaimRespectsLiveLeases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.DB(t)
	id := submit(t, db, 3)
	now := time.Now()
	l := claim(t, db, id, "w1", now)
	if l.Attempt != 1 {
		t.Fatalf("first attempt = %d", l.Attempt)
	}
	s, _ := store.GetSubmission(ctx, db, id)
	if s.State != job.StateRunning || s.LeaseOwner != "w1" || s.LeaseUntil == nil {
		t.Fatalf("after claim: %+v", s)
	}
	res, err := store.ClaimBatch(ctx, db, []string{id}, "w2", now.Add(29*time.Second), 30*time.Second, nil)
	if err != nil || res[0].Outcome != store.Leased {
		t.Fatalf("claim of a live lease: %v %v", res, err)
	}
	res, err = store.ClaimBatch(ctx, db, []string{id}, "w2", now.Add(31*time.Second), 30*time.Second, nil)
	if err != nil || res[0].Outcome != store.Claimed || res[0].Attempt != 2 {
		t.Fatalf("claim of an expired lease: %+v %v", res, err)
	}
	s, _ = store.GetSubmission(ctx, db, id)
	if s.Failures != 1 {
		t.Fatalf("a lost lease counts as a failure: failures = %d", s.Failures)
	}
	hist, err := store.SubmissionHistory(ctx, db, id)
	if err != nil || len(hist) != 3 || hist[2].Worker != "w2" || hist[2].Detail == "" {
		t.Fatalf("history: %+v %v", hist, err)
	}
}

// A heartbeat extends live leases and reports lost ones.
func TestHeartbeat(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.DB(t)
	now := time.Now()
	a, b := submit(t, db, 3), submit(t, db, 3)
	la, lb := claim(t, db, a, "w1", now), claim(t, db, b, "w1", now)
	if err := store.Cancel(ctx, db, b, "admin", now); err != nil {
		t.Fatal(err)
	}
	lost, err := store.Heartbeat(ctx, db, "w1", []store.Lease{la, lb}, now.Add(20*time.Second), 30*time.Second)
	if err != nil || len(lost) != 1 || lost[0].ID != b {
		t.Fatalf("lost = %+v, %v; want only %s", lost, err, b)
	}
	// The extended lease outlives the original expiry.
	errs, err := store.FinalizeBatch(ctx, db, "w1", []store.Result{{Lease: la, Outcome: job.Outcome{Verdict: job.VerdictWA}}}, now.Add(45*time.Second))
	if err != nil || errs[0] != nil {
		t.Fatalf("finalize after heartbeat: %v %v", errs, err)
	}
}

// Invariant 7: retries are bounded; past the bound the submission is dead with SE, a
// dead letter and a dead-letter notification in the outbox.
func TestEndAttemptRetriesThenDeadLetters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.DB(t)
	id := submit(t, db, 2)
	now := time.Now()
	end := store.Ending{Cause: "sandbox exploded", CountsAsFailure: true,
		Backoff: func(n int) time.Duration { return time.Duration(n) * time.Minute }}
	st, err := store.EndAttempt(ctx, db, "w1", claim(t, db, id, "w1", now), end, now)
	if err != nil || st != job.StateQueued {
		t.Fatalf("first failure: %v %v", st, err)
	}
	if n := count(t, db, `SELECT count(*) FROM outbox WHERE submission_id = $1 AND available_at >= now() + interval '50 seconds'`, id); n != 1 {
		t.Fatalf("retry row with backoff = %d, want 1", n)
	}
	st, err = store.EndAttempt(ctx, db, "w1", claim(t, db, id, "w1", now), end, now)
	if err != nil || st != job.StateDead {
		t.Fatalf("second failure: %v %v", st, err)
	}
	s, _ := store.GetSubmission(ctx, db, id)
	if s.Verdict != job.VerdictSE || s.LastError != "sandbox exploded" || s.FinishedAt == nil {
		t.Fatalf("dead submission: %+v", s)
	}
	dls, err := store.ListDeadLetters(ctx, db, 10, time.Time{}, "")
	if err != nil || len(dls) != 1 || dls[0].SubmissionID != id || dls[0].Attempts != 2 {
		t.Fatalf("dead letters: %+v %v", dls, err)
	}
	if n := count(t, db, `SELECT count(*) FROM outbox WHERE submission_id = $1 AND kind = 'dlq'`, id); n != 1 {
		t.Fatalf("dlq notifications = %d, want 1", n)
	}
	// Replay (dry run first: nothing changes, the count is reported).
	var n int
	err = store.InDryTx(ctx, db, true, func(tx pgx.Tx) (err error) {
		n, err = store.Replay(ctx, tx, []string{id}, "admin", now)
		return err
	})
	if err != nil || n != 1 {
		t.Fatalf("dry-run replay: %d %v", n, err)
	}
	if c, _ := store.CountDeadLetters(ctx, db); c != 1 {
		t.Fatalf("dry run removed the dead letter")
	}
	n, err = store.Replay(ctx, db, []string{id}, "admin", now)
	if err != nil || n != 1 {
		t.Fatalf("replay: %d %v", n, err)
	}
	s, _ = store.GetSubmission(ctx, db, id)
	if s.State != job.StateQueued || s.Failures != 0 {
		t.Fatalf("replayed submission: %+v", s)
	}
	if c, _ := store.CountDeadLetters(ctx, db); c != 0 {
		t.Fatalf("dead letters after replay = %d", c)
	}
}

// Invariant 8 at the store: dry runs change nothing, audit rows record who did what.
func TestCancelDryRunAndAudit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.DB(t)
	id := submit(t, db, 3)
	now := time.Now()
	err := store.InDryTx(ctx, db, true, func(tx pgx.Tx) error { return store.Cancel(ctx, tx, id, "root", now) })
	if err != nil {
		t.Fatalf("dry-run cancel: %v", err)
	}
	if s, _ := store.GetSubmission(ctx, db, id); s.State != job.StateQueued || s.Attempt != 0 {
		t.Fatalf("dry run changed the submission: %+v", s)
	}
	if err := store.Cancel(ctx, db, id, "root", now); err != nil {
		t.Fatal(err)
	}
	if err := store.Cancel(ctx, db, id, "root", now); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second cancel: %v, want ErrConflict", err)
	}
	if err := store.AddAudit(ctx, db, store.Audit{Actor: "root", Action: "cancel", Params: map[string]any{"id": id},
		Counts: map[string]any{"canceled": 1}}); err != nil {
		t.Fatal(err)
	}
	as, err := store.ListAudit(ctx, db, 10)
	if err != nil || len(as) != 1 || as[0].Actor != "root" || as[0].Counts["canceled"] != float64(1) {
		t.Fatalf("audit: %+v %v", as, err)
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.DB(t)
	secret, err := store.CreateToken(ctx, db, "alice", "user")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := store.Authenticate(ctx, db, secret)
	if err != nil || tok.Name != "alice" || tok.Role != "user" {
		t.Fatalf("authenticate: %+v %v", tok, err)
	}
	if n := count(t, db, `SELECT count(*) FROM api_tokens WHERE hash = convert_to($1, 'UTF8')`, secret); n != 0 {
		t.Fatal("the token is stored in clear")
	}
	if err := store.RevokeToken(ctx, db, "alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Authenticate(ctx, db, secret); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("revoked token authenticates: %v", err)
	}
}

// Every committed state change is announced on oj_events, in order, and nothing that
// rolled back is.
func TestStateChangesAreNotified(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.DB(t)
	conn, err := db.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN oj_events"); err != nil {
		t.Fatal(err)
	}
	id := submit(t, db, 3)
	now := time.Now()
	dry := func(tx pgx.Tx) error { return store.Cancel(ctx, tx, id, "root", now) }
	if err := store.InDryTx(ctx, db, true, dry); err != nil { // dry run: rolled back
		t.Fatal(err)
	}
	l := claim(t, db, id, "w1", now)
	if _, err := store.FinalizeBatch(ctx, db, "w1", []store.Result{{Lease: l, Outcome: job.Outcome{Verdict: job.VerdictAC}}}, now); err != nil {
		t.Fatal(err)
	}
	want := []string{id + " queued 0", id + " running 1", id + " finished 1"}
	for i, w := range want {
		// The channel is database-wide: tests of other schemas notify on it too.
		var n *pgconn.Notification
		for n == nil || !strings.HasPrefix(n.Payload, id+" ") {
			wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			n, err = conn.Conn().WaitForNotification(wctx)
			cancel()
			if err != nil {
				t.Fatalf("notification %d: %v", i, err)
			}
		}
		if n.Payload != w {
			t.Fatalf("notification %d = %q, want %q", i, n.Payload, w)
		}
	}
}

// History events are a closed set: every store.Event is accepted, anything else refused
// by the CHECK constraint, so a misspelt event cannot hide from the trace.
func TestHistoryEventsAreChecked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.DB(t)
	id := submit(t, db, 3)
	for _, ev := range store.Events {
		if err := store.AddHistory(ctx, db, store.History{SubmissionID: id, Event: ev}); err != nil {
			t.Fatalf("event %q refused: %v", ev, err)
		}
	}
	err := store.AddHistory(ctx, db, store.History{SubmissionID: id, Event: "reclaimed"})
	if !store.Permanent(err) {
		t.Fatalf("an unknown event: %v, want a permanent refusal", err)
	}
}
