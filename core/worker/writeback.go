package worker

import (
	"context"
	"time"

	"oj/core/clock"
	"oj/core/job"
	"oj/core/store"
)

// finalizeLoop writes verdicts back in batches: one fenced statement for many
// submissions, then one XACK per lane for the entries whose fate it decided. It stops when
// the results are closed or at the shutdown deadline (stores ends).
func (w *Worker) finalizeLoop(stores context.Context) {
	batch := make([]result, 0, w.cfg.FinalizeBatch)
	for {
		var first result
		select {
		case r, ok := <-w.results:
			if !ok {
				return
			}
			first = r
		case <-stores.Done():
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
		w.finalize(stores, batch)
	}
}

// finalize writes a batch back. What PostgreSQL decided (written, or fenced off) is acked
// and forgotten at once; what failed for a system reason is retried with backoff, but
// for one lease length at most and never past the shutdown deadline: then it is given
// up — no longer heartbeated, its entry left pending — so that the lease expires and
// reclaim judges it again (invariant 6) instead of this worker holding it forever.
func (w *Worker) finalize(stores context.Context, batch []result) {
	first := w.clock.Now()
	todo := batch
	for try := 1; ; try++ {
		errs := w.write(stores, todo)
		var again []result
		var failure error
		acks := map[job.Lane][]string{}
		var decided []*run
		for i, b := range todo {
			t := b.run.task
			switch err := errs[i]; {
			case err != nil && store.Reason(err) == "":
				again, failure = append(again, b), err
				continue
			case err != nil:
				reason := store.Reason(err)
				w.m.FinalizeRejects.WithLabelValues(reason).Inc()
				w.log.Warn("finalize fenced off", "submission_id", t.SubmissionID, "attempt", t.Attempt, "trace_id", t.TraceID, "reason", reason)
			default:
				w.m.Finalized.WithLabelValues(string(t.Lane), finalLabel(b.outcome)).Inc()
				w.log.Debug("finalized", "submission_id", t.SubmissionID, "attempt", t.Attempt, "trace_id", t.TraceID, "verdict", b.outcome.Verdict)
			}
			b.run.phase.Store(phaseDecided)
			acks[t.Lane] = append(acks[t.Lane], b.run.entries...)
			decided = append(decided, b.run)
		}
		if w.afterCommit != nil && len(decided) > 0 {
			w.afterCommit()
		}
		for lane, ids := range acks {
			w.ack(stores, lane, ids)
		}
		for _, r := range decided {
			w.done(r)
		}
		if len(again) == 0 {
			return
		}
		w.m.Errors.WithLabelValues("finalize").Inc()
		if stores.Err() != nil || w.clock.Now().Sub(first) >= w.cfg.Lease {
			w.log.Error("finalize: giving up; the leases will expire and reclaim judges them again",
				"count", len(again), "tries", try, "err", failure)
			for _, b := range again {
				w.done(b.run)
			}
			return
		}
		w.log.Error("finalize", "count", len(again), "try", try, "err", failure)
		clock.Sleep(stores, job.Backoff(100*time.Millisecond, 5*time.Second, try))
		todo = again
	}
}

// finalLabel is the verdict label of a written-back outcome: a run without CE or SE
// has none of its own.
func finalLabel(o job.Outcome) string {
	if o.Verdict == "" {
		return "none"
	}
	return string(o.Verdict)
}

// write runs one fenced finalize of batch and returns one error per result: nil when
// written, a fence error, or a system error to retry. When PostgreSQL refuses the
// statement for good (store.Permanent: a value it can never store), it bisects the batch so
// that the others are written normally, and the result refused alone is written instead as
// SE with PostgreSQL's reason — fenced by its attempt like any verdict, never retried as an
// outage.
func (w *Worker) write(stores context.Context, batch []result) []error {
	rs := make([]store.Result, len(batch))
	for i, b := range batch {
		rs[i] = store.Result{Lease: store.Lease{ID: b.run.task.SubmissionID, Attempt: b.run.task.Attempt},
			Outcome: b.outcome, Error: b.reason}
	}
	ctx, cancel := context.WithTimeout(stores, w.cfg.StoreTimeout)
	errs, err := store.FinalizeBatch(ctx, w.db, w.cfg.Name, rs, w.clock.Now())
	cancel()
	if err == nil {
		return errs
	}
	if store.Permanent(err) {
		if len(batch) > 1 {
			mid := len(batch) / 2
			return append(w.write(stores, batch[:mid]), w.write(stores, batch[mid:])...)
		}
		if b := &batch[0]; !b.refused {
			t := b.run.task
			w.m.Errors.WithLabelValues("finalize_refused").Inc()
			w.log.Error("verdict refused by PostgreSQL: the attempt ends as SE", "submission_id", t.SubmissionID,
				"attempt", t.Attempt, "trace_id", t.TraceID, "verdict", b.outcome.Verdict, "err", err)
			b.outcome = job.Outcome{Verdict: job.VerdictSE}
			b.reason = "verdict " + string(rs[0].Outcome.Verdict) + " could not be stored: " + err.Error()
			b.refused = true
			return w.write(stores, batch)
		}
	}
	errs = make([]error, len(batch))
	for i := range errs {
		errs[i] = err
	}
	return errs
}
