package worker

import (
	"context"
	"time"

	"oj/core/store"
)

// announceEvery is how often a worker tells PostgreSQL it is alive and how many
// submissions of each lane it judges at once. The dispatcher's fair release sizes each
// lane's window from the workers it heard from within the last 35 s (core/dispatch).
const announceEvery = 10 * time.Second

// announceLoop announces the worker until ctx ends, then removes its row: a stopped
// worker's slots leave the windows at once, a killed one's when it is no longer seen.
func (w *Worker) announceLoop(ctx context.Context) {
	lanes := map[string]int{}
	for name, n := range w.cfg.Concurrency {
		if n > 0 {
			lanes[name] = n
		}
	}
	announce := func(ctx context.Context) {
		if err := store.AnnounceWorker(ctx, w.db, w.cfg.Name, lanes); err != nil && ctx.Err() == nil {
			w.log.Warn("announce worker", "err", err)
		}
	}
	announce(ctx)
	every(ctx, announceEvery, announce)
	gone, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := store.WorkerGone(gone, w.db, w.cfg.Name); err != nil {
		w.log.Warn("remove worker row", "err", err)
	}
}
