package dispatch

import (
	"context"
	"time"

	"oj/core/job"
	"oj/core/store"
)

// The stall watchdog. Fair release trusts what Redis says of a lane's group (what the
// workers hold, where they have read to), and a failover can leave those figures wrong:
// entries acknowledged on the old master still pending on the new one, a counter that
// no longer matches the stream. room counts what waits rather than trusting the lag, but
// a wrong figure of any kind would shut a lane the same way: its window looks full, so
// nothing more is released, while its workers have nothing to read. A lane is stalled
// when, for dispatcher.lane_stall_after, every pass found no room, its group's
// last-delivered id did not move (no worker read anything), and its live workers had
// free slots (PostgreSQL runs fewer of its submissions than they announced). The watchdog
// then re-examines it from scratch — the rate forgotten, what waits counted again, and
// only PostgreSQL's running submissions taken as held (a pending entry no submission
// runs for holds no slot) — and releases into the room found, if rows are due. Each such
// release is logged, counted in oj_lane_stall_releases_total and alerted on
// (OjLaneStallReleased, runbooks/lane-stall.md): the figures that shut the lane were
// wrong, and an operator should know.

// laneStall is what the watchdog knows of a shut lane: since when it has been shut with
// its group's last-delivered id at lastID.
type laneStall struct {
	since  time.Time
	lastID string
}

// stallDue records a pass that found lane shut (rm.room < rm.least) and reports whether
// the watchdog should re-examine it now: shut, unread and with free slots for
// lane_stall_after. Each time it reports true the bound starts again, so a lane that
// stays stalled is re-examined once per bound, not at every pass.
func (d *Dispatcher) stallDue(lane job.Lane, rm laneRoom, running int) bool {
	if d.cfg.LaneStallAfter <= 0 || !rm.known {
		return false
	}
	now := d.clock.Now()
	d.fair.mu.Lock()
	defer d.fair.mu.Unlock()
	s := d.fair.stalls[lane]
	if s == nil || s.lastID != rm.lastID || rm.slots <= running {
		// Shut only now, or the workers read since, or every slot is busy: not stalled.
		d.fair.stalls[lane] = &laneStall{since: now, lastID: rm.lastID}
		return false
	}
	if now.Sub(s.since) < d.cfg.LaneStallAfter {
		return false
	}
	s.since = now
	return true
}

// stallClear records a pass that found room in lane: it is not stalled.
func (d *Dispatcher) stallClear(lane job.Lane) {
	d.fair.mu.Lock()
	delete(d.fair.stalls, lane)
	d.fair.mu.Unlock()
}

// reexamine is the watchdog's look at a stalled lane, under the lane's release lock in
// db's transaction: it recomputes the room from scratch and claims the due rows that fit
// (nil when none is due or there is no room even so). rm is what the pass that found the
// lane shut saw, for the log.
func (d *Dispatcher) reexamine(ctx context.Context, db store.DB, lane job.Lane, running int, languages []string,
	rm laneRoom) ([]store.OutboxRow, error) {
	due, err := store.LaneJobsDue(ctx, db, lane, languages)
	if err != nil || !due {
		return nil, err
	}
	d.fair.mu.Lock()
	delete(d.fair.lanes, lane) // the rate starts again from the next reading
	d.fair.mu.Unlock()
	p, err := d.streams.Progress(ctx, lane)
	if err != nil {
		return nil, nil // Redis cannot say: the next pass tries again
	}
	w := window(rm.slots, 0, d.cfg.FairLookahead)
	waiting, err := d.streams.Undelivered(ctx, lane, p.LastDeliveredID, w)
	if err != nil {
		return nil, nil
	}
	room := w - int(waiting) - running
	figures := []any{"lane", string(lane), "stalled_for", d.cfg.LaneStallAfter, "window", w, "waiting_counted", waiting,
		"redis_lag", p.Lag, "pending", p.Pending, "running", running, "slots", rm.slots, "last_delivered_id", p.LastDeliveredID,
		"runbook", "runbooks/lane-stall.md"}
	if room <= 0 {
		d.log.Warn("lane stalled with idle workers: entries wait in its stream but no worker reads them", figures...)
		return nil, nil
	}
	rows, err := store.ClaimLaneJobs(ctx, db, lane, min(room, d.cfg.BatchSize), languages)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	d.metrics.StallReleases.WithLabelValues(string(lane)).Inc()
	d.log.Warn("lane stalled with idle workers: re-examined from scratch, releasing",
		append(figures, "released", len(rows), "room_before", rm.room, "pending_before", rm.pending,
			"waiting_before", rm.waiting)...)
	return rows, nil
}
