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
// previous tag, never below the lane's head), and the relay releases into each lane only
// as many as keep its workers busy: the lane's window. A newcomer's submission takes the
// head's tag and is among the next released; what stands before it in the stream is at
// most the window.
//
// The window of a lane is the slots its live active workers announced (refreshed every
// capacityRefresh, capable.go) (each one a submission
// judged at once; a slot that frees finds the next entry already waiting) plus what the
// lane consumes in dispatcher.fair_lookahead at its recent rate (so a fast lane never
// waits on the relay's round trips). Sleeping or slow submissions consume slowly: the
// window is then the slots, and another user's submission waits for at most one
// submission per slot. Entries waiting in the stream are read from the group's lag.

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
}

// laneRate is a lane's consumption rate: entries delivered per second, smoothed.
type laneRate struct {
	read   int64
	at     time.Time
	perSec float64
}

func newFairness() *fairness {
	return &fairness{lanes: map[job.Lane]*laneRate{}, held: map[job.Lane]bool{}}
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

// room is how many more of lane's rows may be released now: the window less what waits
// in the stream; and the least room worth a pass (a quarter of the window, so that a fast
// lane is topped up in chunks rather than a row per claim). Without fair release, or when
// Redis cannot say, it is a whole batch.
func (d *Dispatcher) room(ctx context.Context, lane job.Lane) (room, least int) {
	if !d.cfg.FairRelease {
		return d.cfg.BatchSize, 1
	}
	p, err := d.streams.Progress(ctx, lane)
	if err != nil {
		// The XADDs will fail as well and be retried; holding rows back would not help.
		return d.cfg.BatchSize, 1
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
	least = max(1, w/4)
	if !p.Exists || p.Waiting < 0 {
		return w, least
	}
	return max(0, w-int(p.Waiting)), least
}

// window is a lane's window: its live slots (at least one, so that a lane whose workers
// have not announced themselves still moves) plus lookahead's worth of its rate.
func window(slots int, perSec float64, lookahead time.Duration) int {
	w := max(slots, 1) + int(perSec*lookahead.Seconds())
	return min(w, maxWindow)
}

// setHeld records whether lane has due rows waiting for room after this pass.
func (d *Dispatcher) setHeld(lane job.Lane, held bool) {
	d.fair.mu.Lock()
	d.fair.held[lane] = held
	d.fair.mu.Unlock()
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
