package api

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"

	"oj/core/clock"
	"oj/core/store"
)

// buckets are the submit token buckets: one per user (kept in an LRU so that many users
// cannot grow memory without bound) and one for everybody.
type buckets struct {
	rate   float64 // each user's, unless the token has its own
	burst  int
	global *rate.Limiter
	users  *lru.Cache[int64, *rate.Limiter]
}

func newBuckets(l Limits) *buckets {
	b := &buckets{rate: l.UserRate, burst: l.UserBurst}
	if l.GlobalRate > 0 {
		b.global = rate.NewLimiter(rate.Limit(l.GlobalRate), l.GlobalBurst)
	}
	b.users, _ = lru.New[int64, *rate.Limiter](l.UserBuckets)
	return b
}

// newRunBuckets are the runs' buckets: one per user (run_rate, run_burst), apart from
// the submits', and none for everybody (the queued cap bounds the whole).
func newRunBuckets(l Limits) *buckets {
	b := &buckets{rate: l.RunRate, burst: l.RunBurst}
	b.users, _ = lru.New[int64, *rate.Limiter](l.UserBuckets)
	return b
}

// user is tok's bucket: its own submit_rate and submit_burst when it has them (a site
// submitting for all its users through one token), else the configured defaults. A
// token's settings never change, so its bucket is made once.
func (b *buckets) user(tok *store.Token) *rate.Limiter {
	r, burst := b.rate, b.burst
	if tok.SubmitRate != nil {
		r = *tok.SubmitRate
		burst = max(1, int(r)) // a rate of its own without a burst of its own: one second's worth
	}
	if tok.SubmitBurst != nil {
		burst = *tok.SubmitBurst
	}
	if r <= 0 {
		return nil
	}
	id := tok.ID
	if l, ok := b.users.Get(id); ok {
		return l
	}
	l := rate.NewLimiter(rate.Limit(r), burst)
	// Two first requests of one user may race here; the loser's bucket is dropped, which
	// at worst grants one extra token.
	if prev, ok, _ := b.users.PeekOrAdd(id, l); ok {
		return prev
	}
	return l
}

// take takes one token from the user's bucket and one from the global bucket, or none
// from either. When refused it says how long until both would have a token.
func (b *buckets) take(tok *store.Token, now time.Time) (ok bool, wait time.Duration, which string) {
	var reserved []*rate.Reservation
	cancel := func() {
		for _, r := range reserved {
			r.CancelAt(now)
		}
	}
	for _, l := range []struct {
		lim  *rate.Limiter
		name string
	}{{b.user(tok), "user"}, {b.global, "global"}} {
		if l.lim == nil {
			continue
		}
		r := l.lim.ReserveN(now, 1)
		if !r.OK() {
			cancel()
			return false, time.Second, l.name
		}
		reserved = append(reserved, r)
		if d := r.DelayFrom(now); d > 0 {
			cancel()
			return false, d, l.name
		}
	}
	return true, 0, ""
}

// backlog measures the queue once per backlog_refresh (one query on the partial index of
// queued submissions, shared by all requests) and refuses submits while it is over a
// threshold.
type backlog struct {
	db    store.DB
	lim   Limits
	clock clock.Clock
	log   *slog.Logger

	queued atomic.Int64
	oldest atomic.Int64 // unix nanoseconds of the oldest queued submission; 0: none
}

func (b *backlog) run(ctx context.Context) {
	if b.lim.BacklogMaxQueued == 0 && b.lim.BacklogMaxAge == 0 {
		return
	}
	t := time.NewTicker(b.lim.BacklogRefresh)
	defer t.Stop()
	for {
		b.refresh(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (b *backlog) refresh(ctx context.Context) {
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	n, oldest, err := store.QueueStats(qctx, b.db)
	if err != nil {
		if ctx.Err() == nil {
			b.log.Warn("backlog probe", "err", err)
		}
		return
	}
	b.queued.Store(n)
	if oldest == nil {
		b.oldest.Store(0)
	} else {
		b.oldest.Store(oldest.UnixNano())
	}
}

// over reports whether the queue is over a backlog threshold: too many submissions
// queued, or the oldest queued too old. Submits are then refused to the users who have
// submissions waiting (store.NewSubmission.RefuseIfQueued), not to everybody.
func (b *backlog) over() bool {
	if max := b.lim.BacklogMaxQueued; max > 0 && b.queued.Load() >= max {
		return true
	}
	if age := b.lim.BacklogMaxAge; age > 0 {
		if o := b.oldest.Load(); o != 0 && b.clock.Now().Sub(time.Unix(0, o)) > age {
			return true
		}
	}
	return false
}
