package dispatch

import (
	"context"
	"fmt"
	"time"

	"oj/core/job"
	"oj/core/store"
)

func (d *Dispatcher) reconcileLoop(ctx context.Context) {
	t := time.NewTicker(d.cfg.ReconcileInterval)
	defer t.Stop()
	for {
		if n, err := d.ReconcileOnce(ctx); err != nil && ctx.Err() == nil {
			d.log.Warn("reconcile", "err", err)
		} else if n > 0 {
			d.log.Info("reconciler re-drove submissions whose stream entry was lost", "count", n)
		}
		d.housekeep(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// ReconcileOnce walks every stray (live, idle since before reconcile_after, nothing in the
// outbox) and re-drives those whose stream entry is gone or no longer pending. It returns
// how many it re-drove.
func (d *Dispatcher) ReconcileOnce(ctx context.Context) (int, error) {
	now := d.clock.Now()
	cutoff := now.Add(-d.cfg.ReconcileAfter)
	total, after := 0, ""
	for {
		strays, err := store.ListStrays(ctx, d.db, cutoff, after, d.cfg.ReconcileBatch)
		if err != nil {
			return total, err
		}
		if len(strays) == 0 {
			return total, nil
		}
		after = strays[len(strays)-1].ID
		byLane := map[job.Lane][]store.Stray{}
		for _, s := range strays {
			byLane[job.Lane(s.Lane)] = append(byLane[job.Lane(s.Lane)], s)
		}
		var lost []string
		for lane, ss := range byLane {
			ids := make([]string, len(ss))
			for i, s := range ss {
				ids[i] = s.StreamID
			}
			alive, err := d.streams.Alive(ctx, lane, ids)
			if err != nil {
				return total, err
			}
			for i, s := range ss {
				if !alive[i] {
					lost = append(lost, s.ID)
				}
			}
		}
		if len(lost) > 0 {
			n, err := store.Redrive(ctx, d.db, lost, "stream entry lost", now)
			if err != nil {
				return total, err
			}
			total += n
			d.metrics.Redriven.Add(float64(n))
		}
		if len(strays) < d.cfg.ReconcileBatch {
			return total, nil
		}
	}
}

// RedriveLost is the reclaim loop's hand-off: entries of lane that XAUTOCLAIM reported as
// deleted while pending. The submissions they carried are re-driven if still live and not
// under a live lease.
func (d *Dispatcher) RedriveLost(ctx context.Context, lane job.Lane, entryIDs []string) (int, error) {
	ids, err := store.SubmissionsForEntries(ctx, d.db, lane, entryIDs)
	if err != nil {
		return 0, fmt.Errorf("redrive lost entries: %w", err)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	n, err := store.Redrive(ctx, d.db, ids, "stream entry deleted while pending", d.clock.Now())
	if err != nil {
		return 0, fmt.Errorf("redrive lost entries: %w", err)
	}
	d.metrics.Redriven.Add(float64(n))
	return n, nil
}

// housekeep prunes delivered outbox rows, feed events, delivered webhook deliveries and
// runs past their retentions and refreshes the backlog gauges.
func (d *Dispatcher) housekeep(ctx context.Context) {
	now := d.clock.Now()
	for {
		n, err := store.PruneDelivered(ctx, d.db, d.cfg.Retention, 5000)
		if err != nil {
			d.log.Warn("prune outbox", "err", err)
			break
		}
		if n < 5000 {
			break
		}
	}
	if d.cfg.Events.Retention > 0 {
		for {
			n, err := store.PruneEvents(ctx, d.db, d.cfg.Events.Retention, 5000)
			if err != nil {
				d.log.Warn("prune feed events", "err", err)
				break
			}
			if n < 5000 {
				break
			}
		}
	}
	d.webhookHousekeeping(ctx, now)
	d.runCallbackHousekeeping(ctx, now)
	d.pruneRuns(ctx, now)
	n, oldest, err := store.OutboxBacklog(ctx, d.db)
	if err != nil {
		d.log.Warn("outbox backlog", "err", err)
		return
	}
	d.metrics.Backlog.Set(float64(n))
	age := 0.0
	if oldest != nil {
		age = now.Sub(*oldest).Seconds()
	}
	d.metrics.OldestAge.Set(age)
	queues, err := store.LaneQueues(ctx, d.db)
	if err != nil {
		d.log.Warn("lane queues", "err", err)
		return
	}
	for _, lane := range job.Lanes {
		q := queues[lane]
		wait := 0.0
		if q.Oldest != nil {
			wait = now.Sub(*q.Oldest).Seconds()
		}
		d.metrics.Waiting.WithLabelValues(string(lane)).Set(float64(q.Waiting))
		d.metrics.OldestWait.WithLabelValues(string(lane)).Set(wait)
	}
}

// webhookHousekeeping prunes delivered webhook deliveries past webhooks.retention and
// refreshes the webhook backlog gauges.
func (d *Dispatcher) webhookHousekeeping(ctx context.Context, now time.Time) {
	for {
		n, err := store.PruneWebhookDeliveries(ctx, d.db, now.Add(-d.cfg.Webhooks.Retention), 5000)
		if err != nil {
			d.log.Warn("prune webhook deliveries", "err", err)
			break
		}
		if n < 5000 {
			break
		}
	}
	n, oldest, err := store.WebhookBacklog(ctx, d.db)
	if err != nil {
		d.log.Warn("webhook backlog", "err", err)
		return
	}
	d.metrics.WebhookBacklog.Set(float64(n))
	age := 0.0
	if oldest != nil {
		age = max(0, now.Sub(*oldest).Seconds())
	}
	d.metrics.WebhookOldestPending.Set(age)
}

// pruneRunsBatch is how many runs one statement deletes: each batch is a short
// transaction, so deleting an hour of a busy site's runs never holds locks for long.
const pruneRunsBatch = 1000

// pruneRuns deletes the runs made more than runs.retention ago, batch after batch. Runs
// are scratch: their inputs, outputs and history go with them.
func (d *Dispatcher) pruneRuns(ctx context.Context, now time.Time) {
	if d.cfg.Runs.Retention <= 0 {
		return
	}
	for ctx.Err() == nil {
		n, err := store.PruneRuns(ctx, d.db, d.cfg.Runs.Retention, now, pruneRunsBatch)
		if err != nil {
			d.log.Warn("prune runs", "err", err)
			return
		}
		d.metrics.RunsPruned.Add(float64(n))
		if n < pruneRunsBatch {
			return
		}
	}
}
