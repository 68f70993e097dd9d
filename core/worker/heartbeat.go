package worker

import (
	"context"
	"time"

	"oj/core/store"
)

// heartbeatLoop extends the leases of in-flight attempts and stops judging those whose
// lease was lost (reclaimed or canceled): their write-back would be fenced off anyway.
func (w *Worker) heartbeatLoop(ctx context.Context) {
	every(ctx, w.cfg.HeartbeatInterval, w.heartbeatOnce)
}

// every runs fn every interval until ctx ends (the first run one interval in).
func every(ctx context.Context, interval time.Duration, fn func(ctx context.Context)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fn(ctx)
	}
}

// heartbeatOnce runs one heartbeat round over the attempts not yet decided.
func (w *Worker) heartbeatOnce(ctx context.Context) {
	w.mu.Lock()
	leases := make([]store.Lease, 0, len(w.inflight))
	for id, r := range w.inflight {
		if r.phase.Load() != phaseDecided {
			leases = append(leases, store.Lease{ID: id, Attempt: r.task.Attempt})
		}
	}
	w.mu.Unlock()
	if len(leases) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, w.cfg.StoreTimeout)
	defer cancel()
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
		// Only judging is stopped: once the judge returned, the write-back is fenced and
		// reports its own reason, and a verdict committed meanwhile is no lost lease.
		if r != nil && r.task.Attempt == l.Attempt && r.phase.Load() == phaseJudging {
			w.log.Warn("lease lost, stopping judging", "submission_id", l.ID, "attempt", l.Attempt, "trace_id", r.task.TraceID)
			r.cancel(store.ErrLeaseLost)
		}
	}
}
