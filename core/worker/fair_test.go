package worker_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"oj/core/dispatch"
	"oj/core/job"
	"oj/core/store"
	"oj/core/testenv"
)

// ownerSubmit stores a submission of owner on lane.
func (h *harness) ownerSubmit(owner int64, lane job.Lane) string {
	h.t.Helper()
	id, err := store.Submit(context.Background(), h.db, store.NewSubmission{OwnerID: &owner, ProblemID: "aplusb",
		ProblemVersion: 1, Language: "cpp17", Lane: lane, Source: "int main(){}", TraceID: testenv.RandomName("fair-")})
	if err != nil {
		h.t.Fatal(err)
	}
	return id
}

// tokenID creates an API token and returns its id, a submission owner.
func (h *harness) tokenID(name string) int64 {
	h.t.Helper()
	ctx := context.Background()
	if _, err := store.CreateToken(ctx, h.db, name, "user"); err != nil {
		h.t.Fatal(err)
	}
	var id int64
	if err := h.db.QueryRow(ctx, `SELECT id FROM api_tokens WHERE name = $1`, name).Scan(&id); err != nil {
		h.t.Fatal(err)
	}
	return id
}

// steppedJudge starts judgments in the order the worker claims them and finishes each one
// only when the test says so: the test then counts what was judged before what.
type steppedJudge struct {
	mu      sync.Mutex
	started []string
	step    chan struct{}
	begun   chan struct{}
}

func newSteppedJudge() *steppedJudge {
	return &steppedJudge{step: make(chan struct{}), begun: make(chan struct{}, 1000)}
}

func (g *steppedJudge) Judge(ctx context.Context, t job.Task) (job.Outcome, error) {
	g.mu.Lock()
	g.started = append(g.started, t.SubmissionID)
	g.mu.Unlock()
	g.begun <- struct{}{}
	select {
	case <-g.step:
	case <-ctx.Done():
		return job.Outcome{}, ctx.Err()
	}
	if t.Kind == job.KindRun {
		return job.Outcome{Runs: []job.RunResult{{Index: 1, Status: job.RunOK}}}, nil
	}
	return job.Outcome{Verdict: job.VerdictAC, Score: 100}, nil
}

func (g *steppedJudge) order() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.started...)
}

// One user's flood does not starve another: with 40 of alice's submissions queued on a
// lane with 2 slots, bob's one submission takes the first slot that frees after his
// submit (the window holds what the workers hold: nothing of alice's waits in the
// stream while every slot is busy, and his fair tag is the lane's clock, the tag of
// what was released last: ahead of all of alice's still queued) — not after all 40.
// Counted in judgments, not time:
// every judgment ends only when the test lets it.
func TestFairReleaseBoundsAnotherUsersWait(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		fair bool
	}{{"fair release", true}, {"first come first served", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
			// The window is the slots alone (no rate lookahead), whatever pace the test
			// steps the judgments at.
			h.dcfg.FairLookahead = 0
			h.disp = dispatch.New(h.dcfg, h.db, h.streams, h.clock, h.log, dispatch.NewMetrics(nil))
			if !tc.fair {
				h.withoutFairRelease()
			}
			alice, bob := h.tokenID(testenv.RandomName("alice-")), h.tokenID(testenv.RandomName("bob-"))
			const slots = 2
			cfg := testWorkerConfig("fair-w1")
			cfg.Concurrency = map[string]int{"heavy": slots}
			g := newSteppedJudge()
			// The worker announces its slots before anything is released.
			h.run(h.newWorker(cfg, g, nil).Run)
			waitFor(t, func() bool { return h.count(`SELECT count(*) FROM workers`) == 1 })
			var flood []string
			for range 40 {
				flood = append(flood, h.ownerSubmit(alice, job.LaneHeavy))
			}
			h.startDispatcher()
			for range slots {
				<-g.begun // both slots hold one of alice's
			}
			before := len(g.order())
			mine := h.ownerSubmit(bob, job.LaneHeavy)
			// Let one judgment end at a time until bob's has started.
			for judged := 0; ; judged++ {
				if judged > len(flood) {
					t.Fatalf("bob's submission never started: order %v", g.order())
				}
				order := g.order()
				if order[len(order)-1] == mine {
					break
				}
				g.step <- struct{}{}
				<-g.begun
			}
			order := g.order()
			ahead := len(order) - 1 - before // alice's judgments started after bob's submit, before his
			t.Logf("%s: %d of alice's judgments started between bob's submit and his judgment", tc.name, ahead)
			if tc.fair && ahead > 0 {
				t.Fatalf("bob waited for %d of alice's judgments to start, want none: only for a slot to free", ahead)
			}
			if !tc.fair && ahead < len(flood)-2*slots {
				t.Fatalf("without fair release bob waited for only %d of alice's judgments: the test does not show the flood", ahead)
			}
			// Let everything finish so that the worker stops cleanly.
			go func() {
				for {
					select {
					case g.step <- struct{}{}:
					case <-time.After(30 * time.Second):
						return
					}
				}
			}()
			h.waitTerminal(append(flood, mine), 60*time.Second)
		})
	}
}

// ownerRun stores a run of owner, as the API does.
func (h *harness) ownerRun(owner int64) string {
	h.t.Helper()
	spec := job.RunSpec{Stdins: []string{""}, TimeMS: 1000, MemoryMB: 64, OutputBytes: 1024}
	id, err := store.SubmitRun(context.Background(), h.db, store.NewRun{OwnerID: &owner, Language: "python3",
		Source: "print(1)", Spec: spec, TraceID: testenv.RandomName("fair-run-")})
	if err != nil {
		h.t.Fatal(err)
	}
	return id
}

// The Run lane is shared fairly across owners: five of alice's runs are queued first, the
// lane has one slot, and bob's one run waits behind at most one run (the slot's) — it is
// judged before alice's 2nd to 5th, whether bob runs before anything was released or
// while alice's first is being run. Counted in runs started, not time.
func TestFairReleaseOfRunsAcrossOwners(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// afterFirst: bob runs once alice's first holds the slot.
		afterFirst bool
	}{{"bob runs while alice's first is run", true}, {"bob runs before the lane starts", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
			h.dcfg.FairLookahead = 0 // the window is the slot alone, whatever the pace
			h.disp = dispatch.New(h.dcfg, h.db, h.streams, h.clock, h.log, dispatch.NewMetrics(nil))
			alice, bob := h.tokenID(testenv.RandomName("alice-")), h.tokenID(testenv.RandomName("bob-"))
			cfg := testWorkerConfig("fair-runs")
			cfg.Concurrency = map[string]int{"run": 1}
			g := newSteppedJudge()
			h.run(h.newWorker(cfg, g, nil).Run)
			waitFor(t, func() bool { return h.count(`SELECT count(*) FROM workers`) == 1 })
			var hers []string
			for range 5 {
				hers = append(hers, h.ownerRun(alice))
			}
			var his string
			if !tc.afterFirst {
				his = h.ownerRun(bob)
			}
			h.startDispatcher()
			<-g.begun // the slot holds one run
			if tc.afterFirst {
				his = h.ownerRun(bob)
			}
			// Let one run end at a time until bob's has started.
			for ended := 0; ; ended++ {
				order := g.order()
				if order[len(order)-1] == his {
					break
				}
				if ended > len(hers) {
					t.Fatalf("bob's run never started: order %v", order)
				}
				g.step <- struct{}{}
				<-g.begun
			}
			order := g.order()
			if len(order) > 2 {
				t.Fatalf("bob's run started after %d runs of alice's, want at most 1 (the slot's): order %v, alice's %v",
					len(order)-1, order, hers)
			}
			if order[0] != hers[0] {
				t.Fatalf("the first run started is %s, want alice's first %s", order[0], hers[0])
			}
			go func() {
				for {
					select {
					case g.step <- struct{}{}:
					case <-time.After(30 * time.Second):
						return
					}
				}
			}()
			h.waitTerminal(append(hers, his), 60*time.Second)
		})
	}
}
