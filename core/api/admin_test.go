package api_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"oj/core/api/client"
	"oj/core/job"
	"oj/core/store"
	"oj/core/stream"
	"oj/core/wire"
)

var errJudge = errors.New("sandbox exploded")

func auditActions(t *testing.T, e *env) map[string]int {
	t.Helper()
	entries, err := e.admin.Audit(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, a := range entries {
		if a.Actor != "admin" {
			t.Fatalf("audit actor %q, want the token's name", a.Actor)
		}
		key := a.Action
		if a.DryRun {
			key += "/dry"
		}
		out[key]++
	}
	return out
}

// A dead letter replayed is judged again with a new attempt, through the outbox.
func TestReplayJudgesADeadLetterAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	ctx := context.Background()
	e.judge.Set(func(job.Task, int) (job.Outcome, error) { return job.Outcome{}, errJudge }, 0)
	id := e.submit(e.alice, "print(1)")
	dead := e.waitTerminal(id, 20*time.Second)
	if dead.State != "dead" || *dead.Verdict != "SE" {
		t.Fatalf("after failing judges: %+v", dead)
	}
	page, err := e.admin.DLQ(ctx, 10, "")
	if err != nil || len(page.Items) != 1 || page.Items[0].SubmissionID != id || page.Total != 1 || page.Items[0].LastError == "" {
		t.Fatalf("dlq = %+v %v", page, err)
	}
	// Dry run: the count, and nothing changes.
	res, err := e.admin.ReplayDLQ(ctx, wire.ReplayRequest{All: true, DryRun: true})
	if err != nil || res.Replayed != 0 || res.WouldReplay != 1 || !res.DryRun {
		t.Fatalf("dry replay = %+v %v", res, err)
	}
	if s, _ := e.admin.Submission(ctx, id); s.State != "dead" {
		t.Fatalf("after a dry run: %s", s.State)
	}
	e.judge.Set(acceptAll, 0)
	res, err = e.admin.ReplayDLQ(ctx, wire.ReplayRequest{IDs: []string{id}})
	if err != nil || res.Replayed != 1 || res.WouldReplay != 0 || res.Requested != 1 || res.DryRun {
		t.Fatalf("replay = %+v %v", res, err)
	}
	s := e.waitTerminal(id, 20*time.Second)
	if s.State != "finished" || *s.Verdict != "AC" || s.Attempt <= dead.Attempt {
		t.Fatalf("replayed submission = %+v (dead at attempt %d)", s, dead.Attempt)
	}
	page, _ = e.admin.DLQ(ctx, 10, "")
	if len(page.Items) != 0 {
		t.Fatalf("dead letter still listed after replay: %+v", page)
	}
	tr, err := e.admin.Trace(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var sawDead, sawReplay bool
	for _, ev := range tr.Events {
		sawDead = sawDead || ev.Event == "dead"
		sawReplay = sawReplay || (ev.Event == "replayed" && ev.Actor == "admin")
	}
	last := tr.Attempts[len(tr.Attempts)-1]
	if !sawDead || !sawReplay || last.Outcome != "finished" || last.Verdict != "AC" || last.Worker == "" || tr.DeadLetter != nil {
		t.Fatalf("trace = %+v", tr)
	}
	if tr.Attempts[0].Outcome != "retry" || tr.Attempts[0].Error == "" {
		t.Fatalf("first attempt = %+v", tr.Attempts[0])
	}
	if got := auditActions(t, e); got["dlq_replay"] != 1 || got["dlq_replay/dry"] != 1 {
		t.Fatalf("audit = %v", got)
	}
	// Replaying what is not dead replays nothing.
	if res, err := e.admin.ReplayDLQ(ctx, wire.ReplayRequest{IDs: []string{id}}); err != nil || res.Replayed != 0 {
		t.Fatalf("replay of a finished submission = %+v %v", res, err)
	}
	if _, err := e.admin.ReplayDLQ(ctx, wire.ReplayRequest{}); client.StatusOf(err) != 400 {
		t.Fatalf("replay without ids or all: %v", err)
	}
}

// A late result from a canceled attempt is fenced off.
func TestCancelFencesOffALateResult(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	ctx := context.Background()
	// The judge answers only once the cancel is done, however slow the machine.
	release := make(chan struct{})
	e.judge.Set(func(tk job.Task, call int) (job.Outcome, error) {
		<-release
		return acceptAll(tk, call)
	}, 0)
	id := e.submit(e.alice, "print(1)")
	running := e.waitState(id, job.StateRunning, 10*time.Second)
	dry, err := e.admin.Cancel(ctx, id, true)
	if err != nil || dry.Canceled != 0 || dry.WouldCancel != 1 || !dry.DryRun {
		t.Fatalf("dry cancel = %+v %v", dry, err)
	}
	res, err := e.admin.Cancel(ctx, id, false)
	if err != nil || res.Canceled != 1 || res.WouldCancel != 0 || res.DryRun {
		close(release)
		t.Fatalf("cancel = %+v %v", res, err)
	}
	close(release)
	// The judge answers now, and the worker's write-back is fenced off: it acks
	// the entry only once PostgreSQL decided it (invariant 5).
	e.waitFor(10*time.Second, func() bool {
		p, err := e.streams.Pending(ctx, job.LaneLight, 0, "-", 10)
		return e.judge.Answered(id) >= 1 && err == nil && len(p) == 0
	})
	s, err := e.admin.Submission(ctx, id)
	if err != nil || s.State != "canceled" || s.Verdict != nil || s.Attempt != running.Attempt+1 {
		t.Fatalf("after the late result: %+v %v", s, err)
	}
	if _, err := e.admin.Cancel(ctx, id, false); client.StatusOf(err) != http.StatusConflict {
		t.Fatalf("second cancel: %v, want 409", err)
	}
	if _, err := e.admin.Cancel(ctx, "01890000-0000-7000-8000-000000000000", false); client.StatusOf(err) != 404 {
		t.Fatalf("cancel of nothing: %v, want 404", err)
	}
	tr, _ := e.admin.Trace(ctx, id)
	if tr.Attempts[0].Outcome != "canceled" {
		t.Fatalf("trace attempts = %+v", tr.Attempts)
	}
	if got := auditActions(t, e); got["cancel"] != 2 || got["cancel/dry"] != 1 {
		t.Fatalf("audit = %v", got)
	}
}

// Safe trim never removes a pending or undelivered entry; maxlen needs an explicit maxlen.
func TestTrimSafeKeepsPendingEntries(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true})
	ctx := context.Background()
	lane := job.LaneLight
	key := e.streams.Keys.Jobs(lane)
	rdb := e.streams.Client()
	if err := e.streams.EnsureGroup(ctx, lane); err != nil {
		t.Fatal(err)
	}
	adds := make([]stream.Add, 10)
	for i := range adds {
		adds[i] = stream.Add{Stream: key, SubmissionID: "x"}
	}
	ids, _ := e.streams.AddBatch(ctx, adds)
	// 0..2 delivered and acked, 3..4 pending, 5..9 undelivered.
	read, err := e.streams.Read(ctx, lane, "c1", 5, 10*time.Millisecond)
	if err != nil || len(read) != 5 {
		t.Fatal(read, err)
	}
	if err := e.streams.Ack(ctx, lane, ids[0], ids[1], ids[2]); err != nil {
		t.Fatal(err)
	}
	dry, err := e.admin.Trim(ctx, wire.TrimRequest{Lane: "light", Strategy: "safe", DryRun: true})
	if err != nil || dry.LengthBefore < 10 || dry.LengthAfter != dry.LengthBefore-3 {
		t.Fatalf("dry trim = %+v %v", dry, err)
	}
	if n, _ := rdb.XLen(ctx, key).Result(); n != dry.LengthBefore {
		t.Fatalf("dry run trimmed: %d", n)
	}
	res, err := e.admin.Trim(ctx, wire.TrimRequest{Lane: "light", Strategy: "safe"})
	if err != nil || res.LengthAfter != dry.LengthAfter || res.Lanes[0].MinID != ids[3] {
		t.Fatalf("trim = %+v %v", res, err)
	}
	left, _ := rdb.XRange(ctx, key, "-", "+").Result()
	if len(left) != 7 || left[0].ID != ids[3] {
		t.Fatalf("left after safe trim: %d entries from %v", len(left), left)
	}
	p, _ := rdb.XPending(ctx, key, stream.Group).Result()
	if p.Count != 2 {
		t.Fatalf("pending after trim = %d, want 2", p.Count)
	}
	if _, err := e.admin.Trim(ctx, wire.TrimRequest{Lane: "light", Strategy: "maxlen"}); client.StatusOf(err) != 400 {
		t.Fatalf("maxlen without maxlen: %v", err)
	}
	if _, err := e.admin.Trim(ctx, wire.TrimRequest{Strategy: "everything"}); client.StatusOf(err) != 400 {
		t.Fatalf("unknown strategy: %v", err)
	}
	two := int64(2)
	res, err = e.admin.Trim(ctx, wire.TrimRequest{Lane: "light", Strategy: "maxlen", MaxLen: &two})
	if err != nil || res.LengthAfter != 2 {
		t.Fatalf("maxlen trim = %+v %v", res, err)
	}
	// Every lane at once; lanes without a stream are fine.
	if _, err := e.admin.Trim(ctx, wire.TrimRequest{Strategy: "safe"}); err != nil {
		t.Fatal(err)
	}
	if got := auditActions(t, e); got["trim"] != 3 || got["trim/dry"] != 1 {
		t.Fatalf("audit = %v", got)
	}
}

// Reclaim lets PostgreSQL decide every idle pending entry.
func TestReclaimAsksPostgreSQL(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true, allAtOnce: true})
	ctx := context.Background()
	lane := job.LaneLight
	key := e.streams.Keys.Jobs(lane)
	// Four submissions relayed to the stream, all read by a consumer that then "dies".
	expired, live, terminal, queued := e.submit(e.alice, "1"), e.submit(e.alice, "2"), e.submit(e.alice, "3"), e.submit(e.alice, "4")
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		_ = e.db.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE delivered_at IS NULL`).Scan(&n)
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("outbox not relayed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	entries, err := e.streams.Read(ctx, lane, "dead-worker", 10, 10*time.Millisecond)
	if err != nil || len(entries) != 4 {
		t.Fatal(entries, err)
	}
	// An entry of a submission that never existed.
	rdb := e.streams.Client()
	if err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []any{stream.FieldSubmission, "01890000-0000-7000-8000-000000000000"}}).Err(); err != nil {
		t.Fatal(err)
	}
	if ghost, _ := e.streams.Read(ctx, lane, "dead-worker", 10, 10*time.Millisecond); len(ghost) != 1 {
		t.Fatal("ghost entry not read")
	}
	now := time.Now()
	if _, err := store.ClaimBatch(ctx, e.db, []string{expired}, "dead-worker", now.Add(-time.Minute), 10*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := store.ClaimBatch(ctx, e.db, []string{live, terminal}, "busy-worker", now, time.Minute, nil); err != nil {
		t.Fatal(err)
	}
	errs, err := store.FinalizeBatch(ctx, e.db, "busy-worker", []store.Result{{Lease: store.Lease{ID: terminal, Attempt: 1},
		Outcome: job.Outcome{Verdict: job.VerdictWA}}}, now)
	if err != nil || errs[0] != nil {
		t.Fatal(err, errs)
	}
	time.Sleep(50 * time.Millisecond)

	zero := int64(0)
	dry, err := e.admin.Reclaim(ctx, wire.ReclaimRequest{Lane: "light", MinIdleMS: &zero, DryRun: true})
	want := wire.ReclaimResult{DryRun: true, Examined: 5, WouldReclaim: 2, StillLeased: 1, TerminalAcked: 1, Missing: 1}
	if err != nil || *dry != want {
		t.Fatalf("dry reclaim = %+v %v, want %+v", dry, err, want)
	}
	if p, _ := rdb.XPending(ctx, key, stream.Group).Result(); p.Count != 5 {
		t.Fatalf("a dry run changed the pending list: %d", p.Count)
	}
	pel, err := e.admin.PEL(ctx, "light", 0, 100)
	if err != nil || len(pel) != 5 {
		t.Fatalf("pel = %+v %v", pel, err)
	}
	// The relay may publish the four in any order (its batches run concurrently), so
	// the expired lease's entry is looked for, not expected first.
	found := false
	for _, p := range pel {
		if p.SubmissionID == expired {
			found = p.Consumer == "dead-worker" && p.Deliveries == 1
		}
	}
	if !found {
		t.Fatalf("pel = %+v: the expired lease's entry, read once by dead-worker, is missing", pel)
	}
	res, err := e.admin.Reclaim(ctx, wire.ReclaimRequest{Lane: "light", MinIdleMS: &zero})
	want.DryRun, want.Reclaimed, want.WouldReclaim = false, 2, 0
	if err != nil || *res != want {
		t.Fatalf("reclaim = %+v %v, want %+v", res, err, want)
	}
	// Only the live lease's entry stays pending.
	if p, _ := rdb.XPending(ctx, key, stream.Group).Result(); p.Count != 1 {
		t.Fatalf("pending after reclaim = %d, want 1", p.Count)
	}
	// The expired attempt was ended through the store: back in the queue with a new
	// outbox row (a retry), and a worker now judges both reclaimed submissions.
	s, _ := store.GetSubmission(ctx, e.db, expired)
	if s.State != job.StateQueued || s.Failures != 1 {
		t.Fatalf("expired submission after reclaim: %s failures %d", s.State, s.Failures)
	}
	e.apienv.StartWorker(nil)
	for _, id := range []string{expired, queued} {
		if got := e.waitTerminal(id, 20*time.Second); got.State != "finished" {
			t.Fatalf("reclaimed %s ended %s", id, got.State)
		}
	}
	if got := auditActions(t, e); got["reclaim"] != 1 || got["reclaim/dry"] != 1 {
		t.Fatalf("audit = %v", got)
	}
	w, err := e.admin.Workers(ctx)
	if err != nil || len(w.Lanes) != len(job.Lanes) || len(w.Leases) != 1 || w.Leases[0].Owner != "busy-worker" || w.Leases[0].Count != 1 {
		t.Fatalf("workers = %+v %v", w, err)
	}
}

func TestRejudgeSubmissionAndProblem(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	ctx := context.Background()
	ids := []string{e.submit(e.alice, "1"), e.submit(e.bob, "2"), e.submit(e.alice, "3")}
	for _, id := range ids {
		e.waitTerminal(id, 20*time.Second)
	}
	res, err := e.admin.RejudgeSubmission(ctx, ids[0], true)
	if err != nil || res.Rejudged != 0 || res.WouldRejudge != 1 || !res.DryRun {
		t.Fatalf("dry rejudge = %+v %v", res, err)
	}
	res, err = e.admin.RejudgeSubmission(ctx, ids[0], false)
	if err != nil || res.Rejudged != 1 || res.WouldRejudge != 0 {
		t.Fatalf("rejudge = %+v %v", res, err)
	}
	s := e.waitTerminal(ids[0], 20*time.Second)
	if s.State != "finished" || s.Attempt != 2 {
		t.Fatalf("rejudged = %+v", s)
	}
	tr, _ := e.admin.Trace(ctx, ids[0])
	if tr.Submission.Lane != "rejudge" {
		t.Fatalf("rejudged on lane %q", tr.Submission.Lane)
	}
	pr, err := e.admin.RejudgeProblem(ctx, "aplusb", false)
	if err != nil || pr.Rejudged != 3 {
		t.Fatalf("problem rejudge = %+v %v", pr, err)
	}
	for _, id := range ids {
		e.waitTerminal(id, 20*time.Second)
	}
	if _, err := e.admin.RejudgeProblem(ctx, "nope", false); client.StatusOf(err) != 404 {
		t.Fatalf("rejudge of an unknown problem: %v", err)
	}
	e.judge.Set(acceptAll, time.Second)
	busy := e.submit(e.alice, "4")
	if _, err := e.admin.RejudgeSubmission(ctx, busy, false); client.StatusOf(err) != http.StatusConflict {
		t.Fatalf("rejudge of a live submission: %v, want 409", err)
	}
	if got := auditActions(t, e); got["rejudge"] != 1 || got["rejudge/dry"] != 1 || got["rejudge_problem"] != 1 {
		t.Fatalf("audit = %v", got)
	}
}

func TestOverviewAndOutbox(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	ctx := context.Background()
	id := e.submit(e.alice, "1")
	e.waitTerminal(id, 20*time.Second)
	ov, err := e.admin.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	for _, c := range ov.Submissions {
		counts[c.State] = c.Count
	}
	if len(ov.Lanes) != len(job.Lanes) || ov.Lanes[3].Lane != "run" || ov.Lanes[0].Lane != "light" || ov.Lanes[0].Length < 1 || !ov.Lanes[0].GroupExists ||
		ov.Lanes[0].Consumers < 1 || ov.RedisVersion == "" || counts["finished"] != 1 || len(counts) != 5 || len(ov.Runs) != 4 {
		t.Fatalf("overview = %+v", ov)
	}
	// The relay marks its row delivered in the transaction around the XADD, which may
	// commit after a fast worker already finished the submission: wait for it.
	ob, err := e.admin.Outbox(ctx, 10)
	for deadline := time.Now().Add(10 * time.Second); err == nil && ob.Backlog != 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		ob, err = e.admin.Outbox(ctx, 10)
	}
	if err != nil || ob.Backlog != 0 || ob.Rows == nil {
		t.Fatalf("outbox = %+v %v", ob, err)
	}
	if _, err := e.admin.DLQ(ctx, 10, "garbage"); client.StatusOf(err) != 400 {
		t.Fatalf("bad cursor: %v", err)
	}
	// Unknown routes answer JSON errors too.
	code, _, body := e.raw("GET", "/admin/v1/nothing", tokenOf(e.admin), nil, nil)
	if code != 404 || body["error"] == nil {
		t.Fatalf("unknown route: %d %v", code, body)
	}
	// Metrics are labelled by route pattern, never by id.
	code, _, _ = e.raw("GET", "/metrics", "", nil, nil)
	if code != 200 {
		t.Fatalf("metrics: %d", code)
	}
	if code, _, body := e.raw("GET", "/readyz", "", nil, nil); code != 200 || body["postgres"] != "ok" || body["redis"] != "ok" {
		t.Fatalf("readyz: %d %v", code, body)
	}
}
