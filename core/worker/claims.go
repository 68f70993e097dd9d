package worker

import (
	"context"
	"errors"

	"oj/core/job"
	"oj/core/store"
)

// claim claims ids in one statement. Should PostgreSQL refuse the statement for good (a
// value it cannot take, which the stream's own checks should already have caught), it
// bisects the batch so the others are claimed, and drops the entries of an id refused
// alone. A transient error leaves the ids it covers unclaimed and is returned, with the
// results of the parts that were claimed.
func (l *lane) claim(ctx context.Context, ids []string, bySub map[string][]string) ([]store.ClaimResult, error) {
	res, err := store.ClaimBatch(ctx, l.db, ids, l.cfg.Name, l.clock.Now(), l.cfg.Lease, l.languages())
	if err == nil || !store.Permanent(err) {
		return res, err
	}
	if len(ids) == 1 {
		l.m.Claims.WithLabelValues(string(l.lane), "malformed").Inc()
		l.log.Warn("dropping a stream entry PostgreSQL refuses to claim", "lane", l.lane, "submission_id", ids[0], "err", err)
		l.drop(ctx, bySub[ids[0]])
		return nil, nil
	}
	mid := len(ids) / 2
	a, errA := l.claim(ctx, ids[:mid], bySub)
	b, errB := l.claim(ctx, ids[mid:], bySub)
	return append(a, b...), errors.Join(errA, errB)
}

// drop acks and deletes malformed entries.
func (l *lane) drop(ctx context.Context, ids []string) {
	if len(ids) == 0 {
		return
	}
	if err := l.streams.Drop(context.WithoutCancel(ctx), l.lane, ids...); err != nil {
		// They come back through reclaim and are dropped then.
		l.m.Errors.WithLabelValues("ack").Inc()
		l.log.Warn("drop malformed entries", "lane", l.lane, "count", len(ids), "err", err)
	}
}

// decided reports whether PostgreSQL decided an entry's fate (a commit, or a business
// rejection such as a stale attempt), so the entry may be acked.
func (w *Worker) decided(err error) bool { return err == nil || store.Reason(err) != "" }

func (w *Worker) ack(ctx context.Context, lane job.Lane, ids []string) {
	if len(ids) == 0 {
		return
	}
	if err := w.streams.Ack(context.WithoutCancel(ctx), lane, ids...); err != nil {
		// Unacked entries come back through reclaim; PostgreSQL then says they are done.
		w.m.Errors.WithLabelValues("ack").Inc()
		w.log.Warn("ack", "lane", lane, "count", len(ids), "err", err)
	}
}

func (w *Worker) logEnd(id string, attempt int, trace string, st job.State, cause string, err error) {
	switch {
	case err == nil:
		w.m.AttemptsEnded.WithLabelValues(string(st)).Inc()
		w.log.Warn("attempt ended without a verdict", "submission_id", id, "attempt", attempt, "trace_id", trace, "state", st,
			"cause", cause)
	case store.Reason(err) != "":
		w.m.AttemptsEnded.WithLabelValues(store.Reason(err)).Inc()
		w.log.Info("attempt end fenced off", "submission_id", id, "attempt", attempt, "trace_id", trace, "reason", store.Reason(err))
	default:
		w.m.Errors.WithLabelValues("end_attempt").Inc()
		w.log.Error("end attempt", "submission_id", id, "attempt", attempt, "trace_id", trace, "err", err)
	}
}
