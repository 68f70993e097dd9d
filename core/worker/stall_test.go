package worker_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"oj/core/dispatch"
	"oj/core/job"
	"oj/core/stream"
	"oj/core/testenv"
)

// A lane whose figures Redis got wrong. Each test shuts the light lane of a fair relay
// whose window is its worker's 2 slots (no rate lookahead) with a figure that is not
// true, then submits and waits for every submission to be judged: a lane that stays
// shut fails the test at waitTerminal's bound.

// stallHarness is a harness whose fair relay's window is the slots alone, with the
// watchdog after stallAfter (0: off), and a worker with 2 light slots that reclaims
// nothing (the test's figures are not to be repaired behind its back). It returns the
// dispatcher's metrics.
func stallHarness(t *testing.T, stallAfter time.Duration) (*harness, *dispatch.Metrics) {
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	h.dcfg.FairLookahead = 0
	h.dcfg.LaneStallAfter = stallAfter
	m := dispatch.NewMetrics(nil)
	h.disp = dispatch.New(h.dcfg, h.db, h.streams, h.clock, h.log, m)
	if err := h.streams.EnsureGroup(context.Background(), job.LaneLight); err != nil {
		t.Fatal(err)
	}
	return h, m
}

func (h *harness) startStallWorker(t *testing.T) {
	cfg := testWorkerConfig(testenv.RandomName("stall-w-"))
	cfg.Concurrency = map[string]int{"light": 2}
	cfg.ReclaimMinIdle = time.Hour
	h.startWorker(cfg, newScripted(nil))
	waitFor(t, func() bool { return h.count(`SELECT count(*) FROM workers`) == 1 })
}

// groupInfo is the light lane's group as XINFO GROUPS reports it.
func (h *harness) groupInfo(t *testing.T) redis.XInfoGroup {
	t.Helper()
	gs, err := h.streams.Client().XInfoGroups(context.Background(), h.streams.Keys.Jobs(job.LaneLight)).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gs {
		if g.Name == stream.Group {
			return g
		}
	}
	t.Fatal("no group")
	return redis.XInfoGroup{}
}

// After failovers a group was seen with lag 20 while nothing followed its last-delivered
// id; with a window of 6 the relay's room stayed 0 and the lane never moved. Here the
// stale counter is made directly (XGROUP SETID … ENTRIESREAD) and the watchdog is off:
// counting what follows the last-delivered id alone moves the lane, while Redis's lag
// still says 20.
func TestStaleGroupLagDoesNotShutTheLane(t *testing.T) {
	t.Parallel()
	h, m := stallHarness(t, 0)
	ctx := context.Background()
	rdb, key := h.streams.Client(), h.streams.Keys.Jobs(job.LaneLight)
	const added, lag = 30, 20
	for i := range added {
		if err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []any{"filler", i}}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := rdb.Do(ctx, "XGROUP", "SETID", key, stream.Group, "$", "ENTRIESREAD", added-lag).Err(); err != nil {
		t.Fatal(err)
	}
	g := h.groupInfo(t)
	after, err := rdb.XRangeN(ctx, key, "("+g.LastDeliveredID, "+", 10).Result()
	if err != nil || g.Lag != lag || len(after) != 0 {
		t.Fatalf("set-up: lag %d (want %d), %d entries after %s %v", g.Lag, lag, len(after), g.LastDeliveredID, err)
	}

	h.startStallWorker(t)
	ids := h.submit(8, job.LaneLight, 3)
	h.startDispatcher()
	for _, s := range h.waitTerminal(ids, 60*time.Second) {
		if s.State != job.StateFinished || s.Verdict != job.VerdictAC {
			t.Fatalf("submission %s: %s %s", s.ID, s.State, s.Verdict)
		}
	}
	if g := h.groupInfo(t); g.Lag != lag || g.Pending != 0 {
		t.Fatalf("after: lag %d pending %d; the counter should still be off by %d and everything acknowledged", g.Lag, g.Pending, lag)
	}
	if n := testutil.ToFloat64(m.StallReleases.WithLabelValues("light")); n != 0 {
		t.Fatalf("the watchdog is off but counted %v releases", n)
	}
}

// Entries pending in the group that no submission runs (acknowledged on a master that
// then died, their acknowledgement lost with it) fill the window of a lane whose workers
// have nothing to do. The worker here reclaims nothing for an hour, so only the watchdog
// can move the lane: it re-examines it from scratch every lane_stall_after, releases,
// and counts it.
func TestLaneStallWatchdogReleasesPastGhostPending(t *testing.T) {
	t.Parallel()
	h, m := stallHarness(t, 200*time.Millisecond)
	ctx := context.Background()
	rdb, key := h.streams.Client(), h.streams.Keys.Jobs(job.LaneLight)
	const ghosts = 20
	for range ghosts {
		if err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []any{stream.FieldSubmission, randomUUID(t)}}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	read, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: stream.Group, Consumer: "gone", Streams: []string{key, ">"},
		Count: ghosts, Block: -1}).Result()
	if err != nil || len(read) != 1 || len(read[0].Messages) != ghosts {
		t.Fatalf("set-up: read %v %v", read, err)
	}

	h.startStallWorker(t)
	ids := h.submit(8, job.LaneLight, 3)
	h.startDispatcher()
	for _, s := range h.waitTerminal(ids, 60*time.Second) {
		if s.State != job.StateFinished || s.Verdict != job.VerdictAC {
			t.Fatalf("submission %s: %s %s", s.ID, s.State, s.Verdict)
		}
	}
	// A worker acknowledges an entry after the commit that made its submission terminal
	// (invariant 5): the last of the eight may still be pending for a moment.
	waitFor(t, func() bool { return h.pending(job.LaneLight) <= ghosts })
	if p := h.pending(job.LaneLight); p != ghosts {
		t.Fatalf("pending %d, want the %d ghosts still there (nothing else moved the lane)", p, ghosts)
	}
	if n := testutil.ToFloat64(m.StallReleases.WithLabelValues("light")); n < 1 {
		t.Fatalf("the watchdog moved the lane but counted %v releases", n)
	}
}

func randomUUID(t *testing.T) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
