package worker

import (
	"context"
	"fmt"
	"sync"
	"time"

	"oj/core/job"
	"oj/core/judge"
	"oj/core/store"
)

// Quarantine. A worker whose last quarantine_after attempts all ended in system errors
// of its own — the sandbox failing, a toolchain gone, a disk full — sets itself apart:
// it claims nothing, so it stops spending the attempts of submission after submission.
// An error caused by the host's load (judge.IsHostBusy: a run held up past
// sandbox.max_stall) says nothing about the worker and never counts: a busy host is
// not a broken worker, and once the load passes it judges again.
//
// While quarantined, the worker re-runs its self-check (the one ojd runs at start:
// a sandboxed run that writes in the work dir, the toolchains of the languages it
// claims) after worker.quarantine_recheck, then twice as long each time it fails, up to
// worker.quarantine_recheck_max. When it passes, the worker lifts its own quarantine
// and claims again. An operator's decision is never undone this way: the lift only
// moves a worker that PostgreSQL still holds quarantined by itself, so a worker
// disabled or drained meanwhile stays as the operator left it.

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

// record keeps err among the recent errors the worker announces.
func (h *health) record(t job.Task, err error, now time.Time) {
	h.errs = append([]store.WorkerError{{At: now, SubmissionID: t.SubmissionID, Error: err.Error()}}, h.errs...)
	if len(h.errs) > recentErrors {
		h.errs = h.errs[:recentErrors]
	}
}

// failed records an attempt that ended in a system error of the worker's own and returns
// the quarantine reason when it completes a streak of quarantine_after.
func (h *health) failed(t job.Task, err error, now time.Time) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.record(t, err, now)
	h.streak++
	if h.after == 0 || h.streak < h.after || h.quarantine != "" {
		return ""
	}
	h.quarantine = fmt.Sprintf("the last %d attempts ended in system errors; the last: %s", h.streak, err.Error())
	return h.quarantine
}

// busy records an attempt the host's load kept from a verdict: shown among the recent
// errors, but neither a failure of the worker nor a sign of its health (the streak stays).
func (h *health) busy(t job.Task, err error, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.record(t, err, now)
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
// records why in PostgreSQL. The host's load is not the worker's fault and is not counted.
func (w *Worker) attemptFailed(t job.Task, err error) {
	if judge.IsHostBusy(err) {
		w.m.HostBusy.Inc()
		w.health.busy(t, err, w.clock.Now())
		w.log.Warn("the host was too busy to judge this attempt: retried, and not counted towards the quarantine "+
			"(runbooks/sandbox-errors.md)", "submission_id", t.SubmissionID, "attempt", t.Attempt, "trace_id", t.TraceID, "err", err)
		return
	}
	reason := w.health.failed(t, err, w.clock.Now())
	if reason == "" {
		return
	}
	w.m.Quarantines.Inc()
	w.log.Error("quarantine entered: this worker claims nothing until its self-check passes again or an operator enables it "+
		"(ojctl worker enable "+w.cfg.Name+"; runbooks/worker-quarantined.md)", "reason", reason,
		"recheck_in", w.cfg.QuarantineRecheck.String())
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

// SetSelfCheck gives the worker the check it re-runs while quarantined (ojd's start-up
// self-check); without one, only an operator lifts a quarantine. Call it before Run.
func (w *Worker) SetSelfCheck(check func(ctx context.Context) error) { w.selfCheck = check }

// recheckLoop re-runs the self-check while the worker is quarantined, on a bounded
// exponential backoff, and lifts the quarantine once it passes; until ctx ends.
func (w *Worker) recheckLoop(ctx context.Context) {
	if w.selfCheck == nil {
		return
	}
	tries := 0
	for {
		st, _, changed := w.gate.get()
		if st != store.WorkerQuarantined || w.health.pendingQuarantine() != "" {
			// Not quarantined, or the quarantine not stored yet (nothing to lift).
			if st != store.WorkerQuarantined {
				tries = 0
			}
			select {
			case <-ctx.Done():
				return
			case <-changed:
			case <-time.After(w.cfg.StatePoll):
			}
			continue
		}
		tries++
		wait := job.Backoff(w.cfg.QuarantineRecheck, w.cfg.QuarantineRecheckMax, tries)
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
		if st, _, _ := w.gate.get(); st != store.WorkerQuarantined {
			continue // an operator moved it meanwhile
		}
		w.recheck(ctx, tries)
	}
}

// recheck runs the self-check once and lifts the quarantine when it passes.
func (w *Worker) recheck(ctx context.Context, tries int) {
	checkCtx, cancel := context.WithTimeout(ctx, time.Minute)
	err := w.selfCheck(checkCtx)
	cancel()
	if err != nil {
		w.m.SelfChecks.WithLabelValues("fail").Inc()
		if ctx.Err() == nil {
			w.log.Warn("quarantined: the self-check failed again", "err", err, "tries", tries,
				"next_in", job.Backoff(w.cfg.QuarantineRecheck, w.cfg.QuarantineRecheckMax, tries+1).String())
		}
		return
	}
	w.m.SelfChecks.WithLabelValues("pass").Inc()
	sctx, cancel := context.WithTimeout(ctx, w.cfg.StoreTimeout)
	defer cancel()
	reason := fmt.Sprintf("the self-check passed again after %d tries", tries)
	lifted, err := store.LiftQuarantine(sctx, w.db, w.cfg.Name, reason, w.clock.Now())
	if err != nil {
		w.log.Warn("lift the quarantine (retried at the next self-check)", "err", err)
		return
	}
	if !lifted {
		// An operator set it apart meanwhile, or enabled it: PostgreSQL's state stands.
		w.readState(ctx)
		return
	}
	w.health.reset()
	w.gate.set(store.WorkerActive, reason)
	w.stateMetric(store.WorkerActive)
	w.m.QuarantinesLeft.WithLabelValues("self_check").Inc()
	w.log.Info("quarantine left: the self-check passed again; claiming", "tries", tries)
}
