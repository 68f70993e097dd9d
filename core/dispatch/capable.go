package dispatch

import (
	"context"
	"slices"
	"sync"
	"time"

	"oj/core/job"
	"oj/core/store"
)

// Capable release. Workers announce the languages their self-check passed and the lanes
// they read (core/worker), and only an active one claims. A lane's stream is read by all
// of the lane's workers through one consumer group, so an entry cannot be addressed to the
// workers that run its language; instead the relay does not release a job row until a
// live, active worker of its lane runs its language (ClaimLaneJobs with the lane's
// languages). Such a row waits in the outbox, its reason visible ("queued: no live worker
// runs java17"), and goes out within a capacity refresh once a capable worker announces
// itself. No attempt is spent while it waits, so it never ends in the dead letters for it.
//
// A lane none of whose workers is live (none started yet, or all killed) is not gated:
// its rows go out as before and wait in the stream. A worker that nevertheless reads an
// entry it cannot run (released then, or while a capable worker was live and has since
// stopped or been drained) does not claim it: PostgreSQL's claim takes the worker's
// languages and answers "incapable", and the worker hands it back (core/worker).

// capacityRefresh is how often the relay rereads the live workers; a worker that
// announces itself is used within it. While no worker is live at all it rereads every
// idleCapacityRefresh, so that the first worker to start closes the ungated window
// quickly (a worker that cannot run what the relay releases meanwhile hands it back).
const (
	capacityRefresh     = 2 * time.Second
	idleCapacityRefresh = 250 * time.Millisecond
)

// waitingRefresh is how often the dispatcher counts the rows held for want of a worker.
const waitingRefresh = 10 * time.Second

// capability is what the relay knows of the live workers between passes.
type capability struct {
	mu  sync.Mutex
	cap store.Capacity
	at  time.Time
	// held is the (lane, language) pairs last seen waiting for a worker, for the log and
	// the gauge.
	held     map[heldKey]int64
	heldAt   time.Time
	counting bool
	// watched is every language a live worker announced since the dispatcher started
	// (languagewatch.go).
	watched map[string]bool
}

type heldKey struct {
	lane     job.Lane
	language string
}

// capacity returns the live workers' Capacity, refreshed from PostgreSQL every
// capacityRefresh (on an error, the last one read).
func (d *Dispatcher) capacity(ctx context.Context) store.Capacity {
	c := &d.capable
	c.mu.Lock()
	refresh := capacityRefresh
	if c.cap.Empty() {
		refresh = idleCapacityRefresh
	}
	stale := time.Since(c.at) > refresh
	c.mu.Unlock()
	if stale {
		live, err := store.LiveCapacity(ctx, d.db, workerSeenWithin)
		c.mu.Lock()
		if err == nil {
			c.cap = live
		} else if ctx.Err() == nil {
			d.log.Warn("read live workers", "err", err)
		}
		c.at = time.Now() // on an error too: retried at the next refresh, not every pass
		c.mu.Unlock()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cap
}

// countHeld counts the job rows waiting because no live worker runs their language,
// every waitingRefresh: the gauge oj_lane_waiting_no_worker, and one log line when a
// language starts and stops waiting.
func (d *Dispatcher) countHeld(ctx context.Context) {
	c := &d.capable
	c.mu.Lock()
	if c.counting || time.Since(c.heldAt) < waitingRefresh {
		c.mu.Unlock()
		return
	}
	c.counting = true
	c.mu.Unlock()
	defer func() { c.mu.Lock(); c.counting = false; c.heldAt = time.Now(); c.mu.Unlock() }()
	d.watchLanguages(ctx)
	qs, err := store.LanguageQueues(ctx, d.db)
	if err != nil {
		if ctx.Err() == nil {
			d.log.Warn("count waiting rows", "err", err)
		}
		return
	}
	live := d.capacity(ctx)
	now := map[heldKey]int64{}
	for _, q := range qs {
		if q.Language != "" && live.Gated(q.Lane) && !live.Runs(q.Lane, q.Language) {
			now[heldKey{q.Lane, q.Language}] = q.Waiting
		}
	}
	c.mu.Lock()
	before := c.held
	c.held = now
	c.mu.Unlock()
	for k, n := range now {
		d.metrics.NoWorker.WithLabelValues(string(k.lane), k.language).Set(float64(n))
		if _, ok := before[k]; !ok {
			d.log.Warn("holding back submissions: "+store.WaitingReason(k.language), "lane", k.lane, "language", k.language,
				"waiting", n, "runbook", "runbooks/worker-quarantined.md")
		}
	}
	for k := range before {
		if _, ok := now[k]; !ok {
			d.metrics.NoWorker.DeleteLabelValues(string(k.lane), k.language)
			d.log.Info("releasing submissions again: a live worker runs their language", "lane", k.lane, "language", k.language)
		}
	}
}

// languagesFor is the languages argument of ClaimLaneJobs for lane: nil (any) unless
// the lane is gated.
func languagesFor(c store.Capacity, lane job.Lane) []string {
	if !c.Gated(lane) {
		return nil
	}
	return slices.Clip(c.Languages(lane))
}
