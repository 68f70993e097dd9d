package worker

import (
	"context"
	"errors"
	"sync"
	"time"

	"oj/core/clock"
	"oj/core/job"
	"oj/core/store"
)

// start judges a claimed task in its own goroutine, holding one slot until the verdict is
// written back (or the attempt ended).
func (w *Worker) start(judgeCtx context.Context, lane job.Lane, t job.Task, entries []string, slots chan struct{}, judges *sync.WaitGroup) {
	ctx, cancel := context.WithCancelCause(judgeCtx)
	ctx = job.WithProgress(ctx, func(c job.CaseResult) { w.reportCase(t, c) })
	r := &run{task: t, entries: entries, cancel: cancel, started: time.Now(), slots: slots}
	w.mu.Lock()
	w.inflight[t.SubmissionID] = r
	w.mu.Unlock()
	w.m.InFlight.WithLabelValues(string(lane)).Inc()
	judges.Add(1)
	go func() {
		defer judges.Done()
		w.log.Debug("judging", "submission_id", t.SubmissionID, "attempt", t.Attempt, "trace_id", t.TraceID, "lane", lane)
		out, err := w.judge.Judge(ctx, t)
		if err == nil && !out.Verdict.Valid() {
			err = errors.New("judge returned no valid verdict")
		}
		if err != nil {
			w.endAttempt(r, err, context.Cause(ctx))
			return
		}
		w.results <- result{run: r, outcome: out}
	}()
}

// reportCase publishes one case's result while the attempt is still judging, for the
// API's event streams. Best effort: a lost report only delays what the client sees.
func (w *Worker) reportCase(t job.Task, c job.CaseResult) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := store.NotifyCase(ctx, w.db, t.SubmissionID, t.Attempt, c); err != nil {
		w.log.Debug("case progress not published", "submission_id", t.SubmissionID, "attempt", t.Attempt, "err", err)
	}
}

// done forgets a run and frees its slot.
func (w *Worker) done(r *run) {
	w.mu.Lock()
	delete(w.inflight, r.task.SubmissionID)
	w.mu.Unlock()
	r.cancel(nil)
	w.m.InFlight.WithLabelValues(string(r.task.Lane)).Dec()
	w.m.JudgeSeconds.WithLabelValues(string(r.task.Lane)).Observe(time.Since(r.started).Seconds())
	release(r.slots, 1)
}

// endAttempt ends an attempt that produced no verdict: a judge failure (retry with backoff,
// dead past the bound) or, on shutdown, a give-back that does not count as a failure.
func (w *Worker) endAttempt(r *run, judgeErr, cause error) {
	defer w.done(r)
	t := r.task
	e := store.Ending{Cause: judgeErr.Error(), CountsAsFailure: true,
		Backoff: func(n int) time.Duration { return job.Backoff(w.cfg.RetryBase, w.cfg.RetryMax, n) }}
	if errors.Is(cause, errShutdown) {
		e = store.Ending{Cause: "given back: worker shutting down", CountsAsFailure: false}
	}
	ctx := context.Background()
	var st job.State
	var err error
	for try := 1; ; try++ {
		st, err = store.EndAttempt(ctx, w.db, w.cfg.Name, store.Lease{ID: t.SubmissionID, Attempt: t.Attempt}, e, w.clock.Now())
		if w.decided(err) || try == 3 {
			break
		}
		clock.Sleep(ctx, time.Duration(try)*200*time.Millisecond)
	}
	w.logEnd(t.SubmissionID, t.Attempt, t.TraceID, st, err)
	if w.decided(err) {
		w.ack(ctx, t.Lane, r.entries)
	}
}

// finalizeLoop writes verdicts back in batches: one fenced statement for many
// submissions, then one XACK per lane for the entries whose fate it decided.
func (w *Worker) finalizeLoop(judgeCtx context.Context) {
	batch := make([]result, 0, w.cfg.FinalizeBatch)
	for {
		first, ok := <-w.results
		if !ok {
			return
		}
		batch = append(batch[:0], first)
		linger := time.NewTimer(w.cfg.FinalizeLinger)
	collect:
		for len(batch) < w.cfg.FinalizeBatch {
			select {
			case r, ok := <-w.results:
				if !ok {
					break collect
				}
				batch = append(batch, r)
			case <-linger.C:
				break collect
			}
		}
		linger.Stop()
		w.finalize(judgeCtx, batch)
	}
}

func (w *Worker) finalize(judgeCtx context.Context, batch []result) {
	rs := make([]store.Result, len(batch))
	for i, b := range batch {
		rs[i] = store.Result{Lease: store.Lease{ID: b.run.task.SubmissionID, Attempt: b.run.task.Attempt}, Outcome: b.outcome}
	}
	ctx := context.Background()
	var errs []error
	var err error
	for try := 1; ; try++ {
		errs, err = store.FinalizeBatch(ctx, w.db, w.cfg.Name, rs, w.clock.Now())
		if err == nil {
			break
		}
		w.m.Errors.WithLabelValues("finalize").Inc()
		w.log.Error("finalize", "count", len(rs), "try", try, "err", err)
		if judgeCtx.Err() != nil && try >= 3 {
			// Shutting down and PostgreSQL is away: leave the entries pending; their leases
			// expire and reclaim judges them again elsewhere.
			for _, b := range batch {
				w.done(b.run)
			}
			return
		}
		clock.Sleep(ctx, job.Backoff(100*time.Millisecond, 5*time.Second, try))
	}
	acks := map[job.Lane][]string{}
	for i, b := range batch {
		t := b.run.task
		if errs[i] != nil {
			reason := store.Reason(errs[i])
			w.m.FinalizeRejects.WithLabelValues(reason).Inc()
			w.log.Warn("finalize fenced off", "submission_id", t.SubmissionID, "attempt", t.Attempt, "trace_id", t.TraceID, "reason", reason)
		} else {
			w.m.Finalized.WithLabelValues(string(t.Lane), string(b.outcome.Verdict)).Inc()
			w.log.Debug("finalized", "submission_id", t.SubmissionID, "attempt", t.Attempt, "trace_id", t.TraceID, "verdict", b.outcome.Verdict)
		}
		acks[t.Lane] = append(acks[t.Lane], b.run.entries...)
	}
	for lane, ids := range acks {
		w.ack(ctx, lane, ids)
	}
	for _, b := range batch {
		w.done(b.run)
	}
}

// heartbeatLoop extends the leases of in-flight attempts and stops judging those whose
// lease was lost (reclaimed or canceled): their write-back would be fenced off anyway.
func (w *Worker) heartbeatLoop(ctx context.Context) {
	t := time.NewTicker(w.cfg.HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		w.heartbeatOnce(ctx)
	}
}

// heartbeatOnce runs one heartbeat round.
func (w *Worker) heartbeatOnce(ctx context.Context) {
	w.mu.Lock()
	leases := make([]store.Lease, 0, len(w.inflight))
	for id, r := range w.inflight {
		leases = append(leases, store.Lease{ID: id, Attempt: r.task.Attempt})
	}
	w.mu.Unlock()
	if len(leases) == 0 {
		return
	}
	lost, err := store.Heartbeat(ctx, w.db, w.cfg.Name, leases, w.clock.Now(), w.cfg.Lease)
	if err != nil {
		w.m.Errors.WithLabelValues("heartbeat").Inc()
		w.log.Warn("heartbeat", "err", err)
		return
	}
	for _, l := range lost {
		w.mu.Lock()
		r := w.inflight[l.ID]
		w.mu.Unlock()
		if r != nil && r.task.Attempt == l.Attempt {
			w.log.Warn("lease lost, stopping judging", "submission_id", l.ID, "attempt", l.Attempt, "trace_id", r.task.TraceID)
			r.cancel(store.ErrLeaseLost)
		}
	}
}
