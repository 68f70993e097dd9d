package worker_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"oj/core/clock"
	"oj/core/job"
	"oj/core/store"
	"oj/core/testenv"
)

// submitRuns stores n runs of two inputs each through the store, as the API does.
func (h *harness) submitRuns(n, maxAttempts int) []string {
	h.t.Helper()
	ids := make([]string, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	const writers = 4
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += writers {
				spec := job.RunSpec{Stdins: []string{"1 2\n", "3 4\n"}, TimeMS: 1000, MemoryMB: 64, OutputBytes: 1024}
				id, err := store.SubmitRun(context.Background(), h.db, store.NewRun{Language: "python3",
					Source: "print(sum(map(int, input().split())))", Spec: spec, MaxAttempts: maxAttempts,
					TraceID: testenv.RandomName("run-")})
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				ids[i] = id
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		h.t.Fatal(firstErr)
	}
	return ids
}

// order records what the judge did, in the order it did it.
type order struct {
	mu     sync.Mutex
	events []string
}

func (o *order) add(e string) {
	o.mu.Lock()
	o.events = append(o.events, e)
	o.mu.Unlock()
}

func (o *order) count(e string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, x := range o.events {
		if x == e {
			n++
		}
	}
	return n
}

// 10,000 runs are queued, and the one the run lane's slot holds never ends until the
// test says so. A submission made then is judged while that run is still running: runs
// waiting delay no submission at all, whatever their number, because the judging lanes'
// slots are their own and the relay releases each lane as far as its own workers go.
// The test is on order, not on a clock.
//
// Not parallel: its 10,000 inserts load the machine, and the other tests that count what
// ran before what (fair release) should not share it with them.
func TestQueuedRunsNeverDelayJudging(t *testing.T) {
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	const queued = 10_000
	runs := h.submitRuns(queued, 3)
	var o order
	gate := make(chan struct{})
	j := newScripted(func(tk job.Task, call int) (job.Outcome, error) {
		if tk.Kind == job.KindRun {
			o.add("run started")
			<-gate
			o.add("run done")
		} else {
			o.add("submission judged")
		}
		return testenv.Accept(tk, call)
	})
	cfg := testWorkerConfig("w")
	cfg.Concurrency = map[string]int{"heavy": 1, "run": 1}
	h.startDispatcher()
	h.startWorker(cfg, j)
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release) // before the worker stops (cleanups run last registered first)

	waitFor(t, func() bool { return o.count("run started") == 1 })
	sub := h.submit(1, job.LaneHeavy, 3)[0]
	s := h.waitTerminal([]string{sub}, 20*time.Second)[sub]
	if s.State != job.StateFinished || s.Verdict != job.VerdictAC {
		t.Fatalf("submission: %+v", s)
	}
	if done, started := o.count("run done"), o.count("run started"); done != 0 || started != 1 {
		t.Fatalf("before the submission was judged: %d runs done, %d started; want 0 and 1", done, started)
	}
	if n := h.count(`SELECT count(*) FROM submissions WHERE kind = 'run' AND state IN ('queued', 'running')`); n != queued {
		t.Fatalf("%d runs live, want all %d", n, queued)
	}
	// The run lane then goes on: the run in hand and the next ones finish.
	release()
	first := h.waitTerminal(runs[:3], 20*time.Second)
	for id, r := range first {
		if r.State != job.StateFinished || r.Verdict != "" || len(r.RunResults) != 2 || r.RunResults[1].Stdout != "3 4\n" {
			t.Fatalf("run %s: %+v", id, r)
		}
	}
}

// A worker process killed with SIGKILL in the middle of a run: another worker reclaims
// it once the lease is dead and finishes it, once, on attempt 2.
func TestKilledWorkerMidRunFinishesOnAttemptTwo(t *testing.T) {
	t.Parallel()
	pgURL := testenv.Schema(t, testenv.PostgresURL(t))
	h := newHarnessOn(t, pgURL, testenv.RedisAddr(t), nil)
	id := h.submitRuns(1, 3)[0]
	ctx := context.Background()
	if err := h.streams.EnsureGroup(ctx, job.LaneRun); err != nil {
		t.Fatal(err)
	}
	relayAll(t, h)

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "OJ_TEST_WORKER_CHILD=1", "OJ_CHILD_PG="+pgURL,
		"OJ_CHILD_REDIS="+testenv.RedisAddr(t), "OJ_CHILD_PREFIX="+h.streams.Keys.Prefix)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	go func() {
		time.Sleep(30 * time.Second)
		_ = cmd.Process.Kill() // never hang the suite on a child that does not answer
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "judging "+id+" 1") {
		t.Fatalf("child: %q %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if r, _ := store.GetRun(ctx, h.db, id); r.State != job.StateRunning || r.LeaseOwner != "child" {
		t.Fatalf("before reclaim: %+v", r)
	}
	h.clock = clock.NewFake(time.Now().Add(time.Minute))
	j := newScripted(nil)
	cfg := testWorkerConfig("survivor")
	cfg.Concurrency = map[string]int{"run": 1}
	h.startWorker(cfg, j)
	r := h.waitTerminal([]string{id}, 20*time.Second)[id]
	if r.State != job.StateFinished || r.Attempt != 2 || j.Calls(id) != 1 || r.Verdict != "" {
		t.Fatalf("after reclaim: %+v (judged %d times)", r, j.Calls(id))
	}
	if len(r.RunResults) != 2 || r.RunResults[0].Status != job.RunOK || r.RunResults[0].Stdout != "1 2\n" {
		t.Fatalf("results: %+v", r.RunResults)
	}
	hist, _ := store.SubmissionHistory(ctx, h.db, id)
	var finished int
	for _, e := range hist {
		if e.Event == store.EventFinished {
			finished++
		}
	}
	if finished != 1 || hist[1].Worker != "child" || hist[2].Worker != "survivor" {
		t.Fatalf("history: %+v", hist)
	}
}

// A run that can never be run (the judge fails every attempt) finishes as SE with the
// reason, once its attempts are spent: no dead letter, nothing for an operator to tend,
// and no event on the results feed at any point of its life.
func TestRunOutOfAttemptsFinishesSE(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testenv.PostgresURL(t), testenv.RedisAddr(t), nil)
	id := h.submitRuns(1, 2)[0]
	j := newScripted(func(job.Task, int) (job.Outcome, error) { return job.Outcome{}, errors.New("sandbox gone") })
	cfg := testWorkerConfig("w")
	cfg.Concurrency = map[string]int{"run": 1}
	h.startDispatcher()
	h.startWorker(cfg, j)
	r := h.waitTerminal([]string{id}, 20*time.Second)[id]
	if r.State != job.StateFinished || r.Verdict != job.VerdictSE || !strings.Contains(r.LastError, "sandbox gone") ||
		r.Attempt != 2 || len(r.RunResults) != 0 {
		t.Fatalf("run: %+v", r)
	}
	if n := h.count(`SELECT count(*) FROM dead_letters WHERE submission_id = $1`, id); n != 0 {
		t.Fatalf("%d dead letters for a run", n)
	}
	if n := h.count(`SELECT count(*) FROM outbox WHERE submission_id = $1 AND kind = 'dlq'`, id); n != 0 {
		t.Fatalf("%d dead-letter notices for a run", n)
	}
	if n := h.count(`SELECT count(*) FROM events WHERE submission_id = $1`, id); n != 0 {
		t.Fatalf("%d feed events for a run", n)
	}
}
