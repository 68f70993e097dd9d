package worker

import (
	"context"
	"time"

	"oj/core/job"
	"oj/core/store"
)

// Handing back. The relay releases a submission only while a live, active worker of its
// lane runs its language (core/dispatch, capable.go), but a lane's stream is shared by all
// of its workers, so an entry can still reach one that cannot or may not judge it: the
// capable worker stopped or was drained after the release, the entry was released while
// the lane had no live worker, or this worker was drained a moment ago. PostgreSQL's
// claim then answers incapable or parked, and nothing was claimed: no attempt is spent.
//
// The worker hands a queued submission back: a new outbox row (store.HandBack), then it
// acknowledges and deletes the entry. The relay holds the new row until a capable worker
// is live, so a submission nobody can run waits in the outbox instead of circling through
// the stream. An incapable hand-back is due after worker.handback_delay: while a capable
// worker is live but busy, a worker without the language that keeps reading the entry
// sees it at most once per delay, never in a hot loop. A parked one is due at once: an
// active worker can take it.
//
// An entry found by reclaim whose holder's lease expired is ended like any expired
// attempt (counted as the dead holder's failure) and retried through the outbox, gated
// the same way; a parked worker leaves such an entry pending for an active worker's
// reclaim.
func (l *lane) handBack(ctx context.Context, r store.ClaimResult, entryIDs []string) {
	reason, delay := r.Outcome.String(), time.Duration(0)
	if r.Outcome == store.Incapable {
		delay = l.cfg.HandBackDelay
	}
	switch {
	case r.State == job.StateRunning && r.Outcome == store.Parked:
		return
	case r.State == job.StateRunning:
		e := store.Ending{Cause: "lease expired: the worker judging it stopped answering", CountsAsFailure: true, LeaseExpired: true,
			Backoff: func(n int) time.Duration { return max(delay, job.Backoff(l.cfg.RetryBase, l.cfg.RetryMax, n)) }}
		st, err := store.EndAttempt(ctx, l.db, l.cfg.Name, store.Lease{ID: r.ID, Attempt: r.Attempt}, e, l.clock.Now())
		l.logEnd(r.ID, r.Attempt, "", st, e.Cause, err)
		if !l.decided(err) {
			return
		}
	default:
		handed, err := store.HandBack(ctx, l.db, r.ID, delay)
		if err != nil {
			l.m.Errors.WithLabelValues("hand_back").Inc()
			l.log.Warn("hand back (left pending for reclaim)", "submission_id", r.ID, "err", err)
			return
		}
		if handed {
			l.m.HandedBack.WithLabelValues(string(l.lane), reason).Inc()
			l.log.Info("handed a submission back without claiming it", "submission_id", r.ID, "lane", l.lane, "reason", reason,
				"due_in", delay.String())
		}
	}
	l.drop(ctx, entryIDs)
}
