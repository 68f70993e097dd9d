package worker

import (
	"context"
	"time"

	"oj/core/job"
	"oj/core/stream"
)

func (w *Worker) reclaimLoop(ctx context.Context, sh *shift, lane job.Lane, slots chan struct{}) {
	t := time.NewTicker(w.cfg.ReclaimInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := w.reclaimOnce(ctx, sh, lane, slots); err != nil && ctx.Err() == nil {
			w.m.Errors.WithLabelValues("reclaim").Inc()
			w.log.Warn("reclaim", "lane", lane, "err", err)
		}
		if w.cfg.ConsumerGCIdle > 0 {
			if n, err := w.streams.DeleteIdleConsumers(ctx, lane, w.cfg.ConsumerGCIdle, w.cfg.Name); err != nil && ctx.Err() == nil {
				w.log.Warn("remove idle consumers", "lane", lane, "err", err)
			} else if n > 0 {
				w.log.Info("removed consumers of gone workers", "lane", lane, "count", n)
			}
		}
	}
}

// reclaimOnce walks lane's pending entries idle for reclaim_min_idle with XAUTOCLAIM, as
// far as free slots allow, and runs what it took through the same claim as fresh entries:
// PostgreSQL decides whether the previous holder's lease is dead (invariant 6). Entries
// that Redis reports deleted while pending go to the reconciler.
func (w *Worker) reclaimOnce(ctx context.Context, sh *shift, lane job.Lane, slots chan struct{}) error {
	cursor := "0-0"
	for round := 0; round < 1000; round++ {
		n := takeSlots(ctx, slots, cap(slots))
		if n == 0 {
			return ctx.Err()
		}
		next, claimed, deleted, err := w.streams.AutoClaim(ctx, lane, w.cfg.Name, w.cfg.ReclaimMinIdle, cursor, n)
		if err != nil {
			release(slots, n)
			if stream.IsNoGroup(err) {
				return w.streams.EnsureGroup(ctx, lane)
			}
			return err
		}
		if len(deleted) > 0 {
			w.m.LostEntries.Add(float64(len(deleted)))
			if w.lost != nil {
				if k, err := w.lost.RedriveLost(ctx, lane, deleted); err != nil {
					w.log.Warn("hand deleted entries to the reconciler", "lane", lane, "err", err)
				} else {
					w.log.Info("pending entries were deleted from the stream", "lane", lane, "entries", len(deleted), "redriven", k)
				}
			}
		}
		// Our own long-running judgments idle in the pending list too; leave them be.
		mine := claimed[:0]
		w.mu.Lock()
		for _, e := range claimed {
			if _, ok := w.inflight[e.SubmissionID]; !ok {
				mine = append(mine, e)
			}
		}
		w.mu.Unlock()
		release(slots, n-len(mine))
		if len(mine) > 0 {
			w.handle(ctx, sh, lane, mine, true, slots)
		}
		if next == "0-0" || next == "" {
			return nil
		}
		cursor = next
	}
	return nil
}
