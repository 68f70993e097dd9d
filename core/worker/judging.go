package worker

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"oj/core/clock"
	"oj/core/job"
	"oj/core/judge"
	"oj/core/store"
)

// start judges a claimed task in its own goroutine. The run holds the judging slot the
// caller took for it until the judge returns, then trades it for a write-back token
// (handOver), which it holds until the verdict is written back (or the attempt ended).
func (l *lane) start(t job.Task, entries []string) {
	ctx, cancel := context.WithCancelCause(l.sh.judgeCtx)
	ctx = job.WithProgress(ctx, func(c job.CaseResult) { l.reportCase(t, c) })
	r := &run{task: t, entries: entries, cancel: cancel, started: time.Now(), hold: l.slots}
	l.mu.Lock()
	l.inflight[t.SubmissionID] = r
	l.mu.Unlock()
	l.m.InFlight.WithLabelValues(string(l.lane)).Inc()
	l.sh.judges.Add(1)
	go func() {
		defer l.sh.judges.Done()
		l.log.Debug("judging", "submission_id", t.SubmissionID, "attempt", t.Attempt, "trace_id", t.TraceID, "lane", l.lane)
		out, keep, reason, err := l.judgeOne(ctx, t)
		panicked := err == nil && reason != "" // judgeOne's reason is a panic's
		r.phase.Store(phaseWriting)
		if !l.handOver(r) {
			// The shutdown deadline passed: nothing can be written back any more, the
			// lease expires and reclaim judges it again.
			l.log.Warn("shutdown deadline passed before the write-back: leaving it to reclaim",
				"submission_id", t.SubmissionID, "attempt", t.Attempt, "trace_id", t.TraceID)
			l.done(r)
			return
		}
		if err == nil && !validOutcome(t, out) {
			err = errors.New("judge returned no valid verdict")
		}
		if err != nil && judge.IsPermanent(err) && ctx.Err() == nil {
			// Another attempt would fail the same way (a broken package): SE now, with
			// the error as the reason, rather than after max_attempts retries.
			l.m.Errors.WithLabelValues("judge_permanent").Inc()
			l.log.Warn("judge failed for good: the submission ends as SE", "submission_id", t.SubmissionID,
				"attempt", t.Attempt, "trace_id", t.TraceID, "err", err)
			out, reason, err = job.Outcome{Verdict: job.VerdictSE}, err.Error(), nil
		}
		if out.Verdict == job.VerdictSE && t.Kind == job.KindRun {
			out.Runs = nil // a run that could not be run has no results (SE is the whole answer)
		}
		if err != nil {
			if context.Cause(ctx) == nil {
				l.attemptFailed(t, err) // a give-back or a lost lease is not the host failing
			}
			l.endAttempt(l.sh.storeCtx, r, err, context.Cause(ctx))
			return
		}
		if panicked {
			l.attemptFailed(t, errors.New(reason))
		} else {
			l.health.ok()
		}
		if out.Verdict == job.VerdictSE && reason == "" {
			reason = seReason(out)
		}
		if keep != nil {
			l.keep(t, keep)
		}
		l.results <- result{run: r, outcome: out, reason: reason}
	}()
}

// validOutcome reports whether out is an answer t may end with: a verdict for a
// submission; for a run, its results, or CE or SE alone.
func validOutcome(t job.Task, out job.Outcome) bool {
	if t.Kind == job.KindRun {
		inputs := 0
		if t.Run != nil {
			inputs = len(t.Run.Stdins)
		}
		return job.ValidRunOutcome(out, inputs)
	}
	return out.Verdict.Valid()
}

// handOver trades r's judging slot for a write-back token, waiting for the token while
// the lane's write-backs are all taken: judging then pauses until PostgreSQL catches up.
// It fails, r still holding its slot, only once the shutdown deadline passed.
func (l *lane) handOver(r *run) bool {
	select {
	case l.writes <- struct{}{}:
	case <-l.sh.storeCtx.Done():
		return false
	}
	release(r.hold, 1)
	r.hold = l.writes
	return true
}

// judgeOne runs the judge. A panic (a hostile package or checker output tripping a bug)
// ends this attempt alone, as SE with the panic as its reason; the stack goes to the log
// and the worker keeps judging the others. keep, when not nil, stores the decision's
// artefacts (a Decider's); the caller runs it once the judging slot is free.
func (w *Worker) judgeOne(ctx context.Context, t job.Task) (out job.Outcome, keep func(context.Context), reason string, err error) {
	defer func() {
		if p := recover(); p != nil {
			w.m.Errors.WithLabelValues("judge_panic").Inc()
			w.log.Error("judge panicked: the attempt ends as SE", "submission_id", t.SubmissionID, "attempt", t.Attempt,
				"trace_id", t.TraceID, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			out, keep, reason, err = job.Outcome{Verdict: job.VerdictSE}, nil, fmt.Sprintf("judge panicked: %v", p), nil
		}
	}()
	if d, ok := w.judge.(Decider); ok {
		dec, err := d.Decide(ctx, t)
		if err != nil {
			return job.Outcome{}, nil, "", err
		}
		return dec.Outcome, dec.Keep, "", nil
	}
	out, err = w.judge.Judge(ctx, t)
	return out, nil, "", err
}

// keep stores a decision's artefacts before its verdict is written back, holding a
// write-back token, not a judging slot. It is bounded by store_timeout and by the
// shutdown deadline; the artefacts are diagnostics, so a failure or a panic is logged
// and the verdict goes on.
func (l *lane) keep(t job.Task, keep func(context.Context)) {
	defer func() {
		if p := recover(); p != nil {
			l.m.Errors.WithLabelValues("judge_panic").Inc()
			l.log.Error("storing the artefacts panicked; the verdict stands", "submission_id", t.SubmissionID,
				"attempt", t.Attempt, "trace_id", t.TraceID, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	ctx, cancel := context.WithTimeout(l.sh.storeCtx, l.cfg.StoreTimeout)
	defer cancel()
	keep(ctx)
}

// seReason is the reason of an SE verdict the judge decided: the first SE case's
// message (a checker or interactor that failed), which is safe to show the owner, else
// the judge's own (scores it could not keep).
func seReason(out job.Outcome) string {
	for _, c := range out.Cases {
		if c.Verdict == job.VerdictSE {
			if c.Message == "" {
				return fmt.Sprintf("case %d: system error", c.Index)
			}
			return fmt.Sprintf("case %d: %s", c.Index, c.Message)
		}
	}
	if out.Reason != "" {
		return out.Reason
	}
	return "system error"
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

// done forgets a run and frees the capacity it holds: its write-back token, or its
// judging slot if it never got one.
func (w *Worker) done(r *run) {
	w.mu.Lock()
	delete(w.inflight, r.task.SubmissionID)
	w.mu.Unlock()
	r.cancel(nil)
	w.m.InFlight.WithLabelValues(string(r.task.Lane)).Dec()
	w.m.JudgeSeconds.WithLabelValues(string(r.task.Lane)).Observe(time.Since(r.started).Seconds())
	release(r.hold, 1)
}

// endAttempt ends an attempt that produced no verdict: a judge failure (retry with backoff,
// dead past the bound) or, on shutdown or when an operator disables the worker, a
// give-back that does not count as a failure.
func (w *Worker) endAttempt(stores context.Context, r *run, judgeErr, cause error) {
	defer w.done(r)
	t := r.task
	e := store.Ending{Cause: judgeErr.Error(), CountsAsFailure: true,
		Backoff: func(n int) time.Duration { return job.Backoff(w.cfg.RetryBase, w.cfg.RetryMax, n) }}
	switch {
	case errors.Is(cause, errShutdown):
		e = store.Ending{Cause: "given back: worker shutting down", CountsAsFailure: false}
	case errors.Is(cause, errDisabled):
		e = store.Ending{Cause: errDisabled.Error(), CountsAsFailure: false}
	}
	var st job.State
	var err error
	for try := 1; ; try++ {
		ctx, cancel := context.WithTimeout(stores, w.cfg.StoreTimeout)
		st, err = store.EndAttempt(ctx, w.db, w.cfg.Name, store.Lease{ID: t.SubmissionID, Attempt: t.Attempt}, e, w.clock.Now())
		cancel()
		if w.decided(err) || try == 3 || stores.Err() != nil {
			break
		}
		clock.Sleep(stores, time.Duration(try)*200*time.Millisecond)
	}
	w.logEnd(t.SubmissionID, t.Attempt, t.TraceID, st, e.Cause, err)
	if w.decided(err) {
		r.phase.Store(phaseDecided)
		w.ack(stores, t.Lane, r.entries)
	}
}
