package worker

import (
	"context"

	"oj/core/stream"
)

// reclaimLoop reclaims the lane's idle pending entries every reclaim_interval, and
// removes the consumer names of gone workers.
func (l *lane) reclaimLoop(ctx context.Context) {
	every(ctx, l.cfg.ReclaimInterval, func(ctx context.Context) {
		// A worker that claims nothing takes nothing over either: drained, disabled or
		// quarantined, it leaves idle entries to the active workers.
		if !l.claiming() {
			return
		}
		if err := l.reclaimOnce(ctx); err != nil && ctx.Err() == nil {
			l.m.Errors.WithLabelValues("reclaim").Inc()
			l.log.Warn("reclaim", "lane", l.lane, "err", err)
		}
		if l.cfg.ConsumerGCIdle > 0 {
			if n, err := l.streams.DeleteIdleConsumers(ctx, l.lane, l.cfg.ConsumerGCIdle, l.cfg.Name); err != nil && ctx.Err() == nil {
				l.log.Warn("remove idle consumers", "lane", l.lane, "err", err)
			} else if n > 0 {
				l.log.Info("removed consumers of gone workers", "lane", l.lane, "count", n)
			}
		}
	})
}

// reclaimOnce walks lane's pending entries idle for reclaim_min_idle with XAUTOCLAIM, as
// far as free slots allow, and runs what it took through the same claim as fresh entries:
// PostgreSQL decides whether the previous holder's lease is dead (invariant 6). Entries
// that Redis reports deleted while pending go to the reconciler.
func (l *lane) reclaimOnce(ctx context.Context) error {
	cursor := "0-0"
	for round := 0; round < 1000; round++ {
		n := takeSlots(ctx, l.slots, cap(l.slots))
		if n == 0 {
			return ctx.Err()
		}
		next, claimed, deleted, err := l.streams.AutoClaim(ctx, l.lane, l.cfg.Name, l.cfg.ReclaimMinIdle, cursor, n)
		if err != nil {
			release(l.slots, n)
			if stream.IsNoGroup(err) {
				return l.streams.EnsureGroup(ctx, l.lane)
			}
			return err
		}
		if len(deleted) > 0 {
			l.m.LostEntries.Add(float64(len(deleted)))
			if l.lost != nil {
				if k, err := l.lost.RedriveLost(ctx, l.lane, deleted); err != nil {
					l.log.Warn("hand deleted entries to the reconciler", "lane", l.lane, "err", err)
				} else {
					l.log.Info("pending entries were deleted from the stream", "lane", l.lane, "entries", len(deleted), "redriven", k)
				}
			}
		}
		// Our own long-running judgments idle in the pending list too; leave them be.
		mine := claimed[:0]
		l.mu.Lock()
		for _, e := range claimed {
			if _, ok := l.inflight[e.SubmissionID]; !ok {
				mine = append(mine, e)
			}
		}
		l.mu.Unlock()
		release(l.slots, n-len(mine))
		if len(mine) > 0 {
			l.handle(ctx, mine, true)
		}
		if next == "0-0" || next == "" {
			return nil
		}
		cursor = next
	}
	return nil
}
