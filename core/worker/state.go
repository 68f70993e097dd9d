package worker

import (
	"context"
	"errors"
	"sync"

	"oj/core/store"
)

// A worker's state is kept in its PostgreSQL row (store.WorkerState) and obeyed here:
//
//   - active: reads and claims.
//   - draining: claims nothing new, finishes what it holds; once it holds nothing it may
//     be stopped without giving anything back.
//   - disabled: claims nothing, and gives back what it is judging (a new entry through
//     the outbox, the attempt not counted as a failure, as on shutdown).
//   - quarantined: its last quarantine_after attempts all ended in system errors of its
//     own (not the host's load); it set itself apart, claims nothing, and re-runs its
//     self-check on a backoff until it passes or an operator enables it (quarantine.go).
//
// The worker rereads its row every state_poll; the claim statement also refuses a worker
// whose row is not active (store.Parked), so nothing is claimed after an operator's change
// committed, even before the worker noticed it.

var errDisabled = errors.New("given back: worker disabled by an operator")

// gate holds the state the worker obeys and wakes the loops that wait for it to claim.
type gate struct {
	mu      sync.Mutex
	state   store.WorkerState
	reason  string
	changed chan struct{}
}

func newGate() *gate { return &gate{state: store.WorkerActive, changed: make(chan struct{})} }

func (g *gate) get() (store.WorkerState, string, <-chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.state, g.reason, g.changed
}

// set records the state and reports the previous one.
func (g *gate) set(st store.WorkerState, reason string) store.WorkerState {
	g.mu.Lock()
	defer g.mu.Unlock()
	prev := g.state
	if prev == st && g.reason == reason {
		return prev
	}
	g.state, g.reason = st, reason
	close(g.changed)
	g.changed = make(chan struct{})
	return prev
}

// claiming reports whether the worker may claim now.
func (w *Worker) claiming() bool {
	st, _, _ := w.gate.get()
	return st.Claims()
}

// waitClaiming blocks until the worker may claim; false when ctx ended first.
func (w *Worker) waitClaiming(ctx context.Context) bool {
	for {
		st, _, changed := w.gate.get()
		if st.Claims() {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-changed:
		}
	}
}

// State returns the state the worker obeys and its reason.
func (w *Worker) State() (store.WorkerState, string) {
	st, reason, _ := w.gate.get()
	return st, reason
}

// obey takes the state read from PostgreSQL.
func (w *Worker) obey(st store.WorkerState, reason string) {
	if w.health.pendingQuarantine() != "" && st == store.WorkerActive {
		return // our own quarantine is not stored yet: keep it
	}
	prev := w.gate.set(st, reason)
	w.stateMetric(st)
	if prev == st {
		return
	}
	w.log.Info("worker state changed", "from", prev, "to", st, "reason", reason, "in_flight", w.inFlight())
	if prev == store.WorkerQuarantined {
		w.m.QuarantinesLeft.WithLabelValues("operator").Inc()
		w.log.Info("quarantine left: set "+string(st)+" by an operator", "reason", reason)
	}
	switch st {
	case store.WorkerActive:
		w.health.reset() // an operator enabled it: the streak starts over
	case store.WorkerDisabled:
		w.giveBackAll()
	}
}

// readState reads the worker's state from PostgreSQL and obeys it.
func (w *Worker) readState(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, w.cfg.StoreTimeout)
	defer cancel()
	st, reason, err := store.WorkerStateOf(ctx, w.db, w.cfg.Name)
	if err != nil {
		if ctx.Err() == nil {
			w.log.Warn("read the worker's state", "err", err)
		}
		return
	}
	w.obey(st, reason)
}

// giveBackAll stops every attempt still judging; each is given back (endAttempt).
func (w *Worker) giveBackAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range w.inflight {
		if r.phase.Load() == phaseJudging {
			r.cancel(errDisabled)
		}
	}
}

// stateMetric sets oj_worker_state: 1 for the state the worker is in, 0 for the others.
func (w *Worker) stateMetric(st store.WorkerState) {
	for _, s := range store.WorkerStates {
		v := 0.0
		if s == st {
			v = 1
		}
		w.m.State.WithLabelValues(string(s)).Set(v)
	}
}
