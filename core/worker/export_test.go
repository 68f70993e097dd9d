package worker

import "context"

// HeartbeatAfterCommit makes w run a heartbeat round right after each finalize commit,
// before the attempts it decided are forgotten: the moment a heartbeat could mistake a
// finished attempt for a lost lease.
func HeartbeatAfterCommit(w *Worker) {
	w.afterCommit = func() { w.heartbeatOnce(context.Background()) }
}
