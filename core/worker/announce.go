package worker

import (
	"context"
	"errors"
	"time"

	"oj/core/store"
)

// announceEvery is how often a worker tells PostgreSQL it is alive, which lanes it reads
// with how many slots, and which languages it runs. The dispatcher sizes each lane's
// release window, and picks the languages it releases, from the workers it heard from
// within the last 35 s (core/dispatch).
const announceEvery = 10 * time.Second

// stateLoop announces the worker every announceEvery and reads its state (drain, disable,
// enable, quarantine) every state_poll, until ctx ends; then it records that the worker
// stopped (store.WorkerGone: an active worker's slots leave the windows at once, a
// killed one's when it is no longer seen).
func (w *Worker) stateLoop(ctx context.Context) {
	lanes := map[string]int{}
	for name, n := range w.cfg.Concurrency {
		if n > 0 {
			lanes[name] = n
		}
	}
	var last time.Time
	tick := func(ctx context.Context) {
		defer w.persistQuarantine(ctx) // after the first announcement, which creates the row
		var st store.WorkerState
		var reason string
		var err error
		if time.Since(last) >= announceEvery {
			st, reason, err = store.AnnounceWorker(ctx, w.db, w.cfg.Name, store.Announcement{Lanes: lanes,
				Languages: w.languages(), LanguageNames: w.cfg.LanguageNames, RecentErrors: w.health.recent()})
			if err == nil {
				last = time.Now()
			}
		} else {
			st, reason, err = store.WorkerStateOf(ctx, w.db, w.cfg.Name)
			if errors.Is(err, store.ErrNotFound) {
				last = time.Time{} // the row is gone (removed by hand): announce again now
				return
			}
		}
		if err != nil {
			if ctx.Err() == nil {
				w.m.Errors.WithLabelValues("announce").Inc()
				w.log.Warn("announce worker or read its state", "err", err)
			}
			return
		}
		w.obey(st, reason)
	}
	tick(ctx)
	every(ctx, w.cfg.StatePoll, tick)
	gone, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := store.WorkerGone(gone, w.db, w.cfg.Name); err != nil {
		w.log.Warn("record the worker stopped", "err", err)
	}
}

// languages is what the worker announces: nil when it runs any language.
func (w *Worker) languages() []string {
	if len(w.cfg.Languages) == 0 {
		return nil
	}
	return w.cfg.Languages
}
