package worker

import (
	"context"
	"sync/atomic"
)

// HeartbeatAfterCommit makes w run a heartbeat round right after each finalize commit,
// before the attempts it decided are forgotten — the moment a heartbeat could mistake a
// finished attempt for a lost lease — and counts the rounds in rounds.
func HeartbeatAfterCommit(w *Worker, rounds *atomic.Int32) {
	w.afterCommit = func() {
		rounds.Add(1)
		w.heartbeatOnce(context.Background())
	}
}

// AfterCommit makes w call fn after each finalize commit, before it acks and forgets the
// attempts the commit decided: a blocking fn holds their write-back tokens.
func AfterCommit(w *Worker, fn func()) { w.afterCommit = fn }
