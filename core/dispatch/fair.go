package dispatch

import (
	"context"
	"math"
	"sync"
	"time"

	"oj/core/job"
	"oj/core/store"
)

// Fair release. A lane's stream is first come, first served: whatever is in it is judged
// in that order. If every committed job went into it at once, one user's thousand
// submissions would stand in front of everybody else's for as long as they take. So job
// rows wait in the outbox, ordered by their fair tags (store: one past their owner's
// previous tag, never below the lane's fair clock, the tag released last), and the relay
// releases into each lane only as many as keep its workers busy: the lane's window. A
// newcomer's submission takes the clock's tag and is the next released, ahead of the
// next row of every owner already served; what stands before it in the stream is at
// most the window. The Run lane is released the same way, so one user's runs hold
// another's first run behind at most one run per slot.
//
// The window of a lane is the slots its live active workers announced (refreshed every
// capacityRefresh, capable.go; each one a submission judged at once) plus what the lane
// consumes in dispatcher.fair_lookahead at its recent rate (so that a fast lane's freed
// slot finds its next entry already waiting rather than waiting on the relay's round
// trips). The window holds what the workers hold (the group's pending entries: read,
// being judged, or judged and about to be acknowledged; or, when Redis has lost them, the
// running submissions in PostgreSQL) and what waits in the stream (counted after the
// group's last-delivered id, never Redis's lag: see room): the relay releases only into
// the rest. Sleeping or slow submissions consume slowly: the window is then the slots,
// nothing waits in the stream while every slot is busy, and another user's submission
// waits for at most one submission per slot: the first slot that frees takes it (the
// relay looks again every heldPoll while rows wait for room). A dead worker's entries
// count until they are claimed again. A lane that stays shut while its workers idle is
// re-examined by the watchdog (stall.go).

// Workers announce themselves every announceEvery (core/worker); one not seen for
// workerSeenWithin no longer counts toward a window.
const (
	workerSeenWithin = store.WorkerLiveWithin
	// rateHalfLife is how fast the consumption rate follows a change.
	rateHalfLife = time.Second
	maxWindow    = 100_000
)

// fairness keeps what the relay knows of each lane between passes.
type fairness struct {
	mu    sync.Mutex
	lanes map[job.Lane]*laneRate
	// held records, per lane, whether the last pass left due rows waiting for room.
	held map[job.Lane]bool
	// settling records whether a held lane's workers held entries that are no longer
	// running (judged, their acknowledgement on its way): room is about to free.
	settling bool
	// stalls are the shut lanes the watchdog watches (stall.go).
	stalls map[job.Lane]*laneStall
}

// laneRate is a lane's consumption rate: entries delivered per second, smoothed.
type laneRate struct {
	read   int64
	at     time.Time
	perSec float64
}

func newFairness() *fairness {
	return &fairness{lanes: map[job.Lane]*laneRate{}, held: map[job.Lane]bool{}, stalls: map[job.Lane]*laneStall{}}
}

// observe folds a new reading of the group's delivered count into the rate.
func (r *laneRate) observe(read int64, now time.Time) {
	if r.at.IsZero() || read < r.read {
		r.read, r.at = read, now // first reading, or the stream was recreated
		return
	}
	dt := now.Sub(r.at)
	if dt < 10*time.Millisecond {
		return
	}
	inst := float64(read-r.read) / dt.Seconds()
	w := math.Exp2(-dt.Seconds() / rateHalfLife.Seconds())
	r.perSec = w*r.perSec + (1-w)*inst
	r.read, r.at = read, now
}

// laneRoom is what room found for a lane: how many more of its rows may be released
// now, and the figures that decided it.
type laneRoom struct {
	// room is how many more rows may be released; least the least room worth a pass.
	room, least int
	// settling reports that the workers hold more entries than PostgreSQL has running.
	settling bool
	// window, waiting (entries counted after the group's last-delivered id, up to the
	// window), pending (the group's) and slots (the live workers') are the figures; lag
	// is Redis's own figure for waiting, for the log only.
	window, waiting, slots int
	pending, lag           int64
	// lastID is the group's last-delivered id: while it stays put, no worker has read.
	lastID string
	// known is false when Redis could not say (room is then a whole batch).
	known bool
}

// room is how many more of lane's rows may be released now: the window less what waits
// in the stream and what the workers hold (running: the lane's running submissions); and
// the least room worth a pass (a quarter of the window, so that a fast lane is topped up
// in chunks rather than a row per claim). Without fair release, or when Redis cannot
// say, it is a whole batch.
//
// What waits is counted (stream.Undelivered: the entries after the group's
// last-delivered id, at most the window's worth), never taken from the group's lag,
// which Redis leaves stale or null after a failover, an XGROUP SETID or deletions.
//
// settling reports that the workers hold more entries than PostgreSQL has running: a
// judgment finished (its finish woke the relay) and its acknowledgement follows within
// moments, or a worker read an entry and is claiming it.
func (d *Dispatcher) room(ctx context.Context, lane job.Lane, running int) laneRoom {
	whole := laneRoom{room: d.cfg.BatchSize, least: 1}
	if !d.cfg.FairRelease {
		return whole
	}
	p, err := d.streams.Progress(ctx, lane)
	if err != nil {
		// The XADDs will fail as well and be retried; holding rows back would not help.
		return whole
	}
	slots := d.capacity(ctx).Slots(lane)
	f := d.fair
	f.mu.Lock()
	r := f.lanes[lane]
	if r == nil {
		r = &laneRate{}
		f.lanes[lane] = r
	}
	if p.Exists {
		r.observe(p.Read, time.Now())
	}
	perSec := r.perSec
	f.mu.Unlock()
	w := window(slots, perSec, d.cfg.FairLookahead)
	d.metrics.Window.WithLabelValues(string(lane)).Set(float64(w))
	rm := laneRoom{room: w, least: max(1, w/4), window: w, slots: slots, known: true}
	if !p.Exists {
		return rm
	}
	waiting, err := d.streams.Undelivered(ctx, lane, p.LastDeliveredID, w)
	if err != nil {
		return whole
	}
	rm.waiting, rm.pending, rm.lag, rm.lastID = int(waiting), p.Pending, p.Lag, p.LastDeliveredID
	held := max(int(p.Pending), running)
	rm.settling = int(p.Pending) > running
	rm.room = max(0, w-rm.waiting-held)
	return rm
}

// window is a lane's window: its live slots (at least one, so that a lane whose workers
// have not announced themselves still moves) plus lookahead's worth of its rate.
func window(slots int, perSec float64, lookahead time.Duration) int {
	w := max(slots, 1) + int(perSec*lookahead.Seconds())
	return min(w, maxWindow)
}

// setHeld records whether lane has due rows waiting for room after this pass.
func (d *Dispatcher) setHeld(lane job.Lane, held, settling bool) {
	d.fair.mu.Lock()
	d.fair.held[lane] = held
	d.fair.settling = d.fair.settling || held && settling
	d.fair.mu.Unlock()
}

// settlingNow reports whether the last pass found a held lane settling (room reports
// it): the relay looks again within settlePoll, a few times, rather than heldPoll.
func (d *Dispatcher) settlingNow() bool {
	d.fair.mu.Lock()
	defer d.fair.mu.Unlock()
	return d.fair.settling
}

// anyHeld reports whether some lane had rows waiting for room at its last pass: the relay
// then looks again soon, as workers free slots, rather than at the idle poll interval.
func (d *Dispatcher) anyHeld() bool {
	d.fair.mu.Lock()
	defer d.fair.mu.Unlock()
	for _, h := range d.fair.held {
		if h {
			return true
		}
	}
	return false
}
