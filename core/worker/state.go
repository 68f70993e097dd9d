package worker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"oj/core/job"
	"oj/core/store"
)

// A worker's state is kept in its PostgreSQL row (store.WorkerState) and obeyed here:
//
//   - active: reads and claims.
//   - draining: claims nothing new, finishes what it holds; once it holds nothing it may
//     be stopped without giving anything back.
//   - disabled: claims nothing, and gives back what it is judging (a new entry through
//     the outbox, the attempt not counted as a failure, as on shutdown).
//   - quarantined: its last quarantine_after attempts all ended in system errors; it set
//     itself apart and claims nothing until an operator enables it.
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

// health tracks the last attempts' outcomes for the quarantine, and the recent system
// errors the worker announces.
type health struct {
	mu     sync.Mutex
	after  int // quarantine_after; 0: never
	streak int
	errs   []store.WorkerError // newest first
	// quarantine is the reason of a quarantine decided but not stored yet.
	quarantine string
}

const recentErrors = 5

// failed records an attempt that ended in a system error and returns the quarantine
// reason when it completes a streak of quarantine_after.
func (h *health) failed(t job.Task, err error, now time.Time) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.errs = append([]store.WorkerError{{At: now, SubmissionID: t.SubmissionID, Error: err.Error()}}, h.errs...)
	if len(h.errs) > recentErrors {
		h.errs = h.errs[:recentErrors]
	}
	h.streak++
	if h.after == 0 || h.streak < h.after || h.quarantine != "" {
		return ""
	}
	h.quarantine = fmt.Sprintf("the last %d attempts ended in system errors; the last: %s", h.streak, err.Error())
	return h.quarantine
}

// ok records an attempt that ended with a verdict.
func (h *health) ok() {
	h.mu.Lock()
	h.streak = 0
	h.mu.Unlock()
}

func (h *health) reset() {
	h.mu.Lock()
	h.streak = 0
	h.mu.Unlock()
}

func (h *health) pendingQuarantine() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.quarantine
}

func (h *health) stored() {
	h.mu.Lock()
	h.quarantine = ""
	h.mu.Unlock()
}

func (h *health) recent() []store.WorkerError {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]store.WorkerError(nil), h.errs...)
}

// attemptFailed is called when an attempt ended in a system error (not a verdict, not a
// give-back): past quarantine_after in a row, the worker stops claiming at once and
// records why in PostgreSQL.
func (w *Worker) attemptFailed(t job.Task, err error) {
	reason := w.health.failed(t, err, w.clock.Now())
	if reason == "" {
		return
	}
	w.m.Quarantines.Inc()
	w.log.Error("quarantining this worker: it claims nothing until an operator enables it (ojctl worker enable "+w.cfg.Name+
		"; runbooks/worker-quarantined.md)", "reason", reason)
	w.gate.set(store.WorkerQuarantined, reason)
	w.persistQuarantine(context.Background())
}

// persistQuarantine stores a quarantine decided but not stored yet; the state loop
// retries it until PostgreSQL has it.
func (w *Worker) persistQuarantine(ctx context.Context) {
	reason := w.health.pendingQuarantine()
	if reason == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, w.cfg.StoreTimeout)
	defer cancel()
	changed, err := store.Quarantine(ctx, w.db, w.cfg.Name, reason, w.health.recent(), w.clock.Now())
	if err != nil {
		w.log.Warn("store the quarantine (retried)", "err", err)
		return
	}
	if !changed {
		// No row yet (the worker has not announced itself: retried after it did), or an
		// operator set it apart already: then PostgreSQL's state stands.
		st, r, err := store.WorkerStateOf(ctx, w.db, w.cfg.Name)
		if err == nil && st != store.WorkerActive {
			w.health.stored()
			w.obey(st, r)
		}
		return
	}
	w.health.stored()
	w.stateMetric(store.WorkerQuarantined)
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
