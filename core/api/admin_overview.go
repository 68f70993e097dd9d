package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"oj/core/job"
	"oj/core/store"
	"oj/core/wire"
)

// overview is GET /admin/v1/overview. Each figure is one bounded query: XLEN, XINFO
// GROUPS, an XRANGE with a COUNT (what follows the group's last-delivered id: Redis's
// lag is shown beside it, not trusted) and one XPENDING entry per lane; the outbox backlog and the live states through
// their partial indexes; terminal states and dead letters counted exactly only while the
// tables are small (estimated beyond).
func (s *Server) overview(w http.ResponseWriter, r *http.Request, _ *store.Token) error {
	now := s.clock.Now()
	out := wire.Overview{At: now, Lanes: make([]wire.LaneOverview, len(job.Lanes))}
	g, gctx := errgroup.WithContext(r.Context())
	s.overviewRedis(gctx, g, &out)
	var queues map[job.Lane]store.LaneQueue
	g.Go(func() error {
		var err error
		queues, err = store.LaneQueues(gctx, s.d.DB)
		return err
	})
	s.overviewPostgres(gctx, g, now, &out)
	g.Go(func() error {
		var err error
		out.NoWorker, err = s.noWorker(gctx)
		return err
	})
	g.Go(func() error {
		var err error
		out.Languages, err = s.languageWorkers(gctx)
		return err
	})
	if err := g.Wait(); err != nil {
		return unavailable("overview", err)
	}
	for i, lane := range job.Lanes {
		q := queues[lane]
		out.Lanes[i].Waiting, out.Lanes[i].OldestWaitMS = q.Waiting, ageMS(now, q.Oldest)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// overviewRedis starts the overview's Redis queries in g: each lane's stream and group,
// the DLQ stream's length, the server's version.
func (s *Server) overviewRedis(gctx context.Context, g *errgroup.Group, out *wire.Overview) {
	for i, lane := range job.Lanes {
		g.Go(func() error {
			st, err := s.d.Streams.LaneStats(gctx, lane)
			if err != nil {
				return err
			}
			out.Lanes[i] = wire.LaneOverview{Lane: string(lane), Length: st.Length, Pending: st.Pending,
				OldestPendingIdle: st.OldestIdle.Milliseconds(), OldestPendingID: st.OldestPendingID, Lag: st.Lag,
				Undelivered: st.Undelivered, UndeliveredCapped: st.UndeliveredCapped, LastDeliveredID: st.LastDeliveredID, Consumers: st.Consumers, GroupExists: st.GroupExists}
			return nil
		})
	}
	g.Go(func() error {
		n, err := s.d.Streams.StreamLength(gctx, s.d.Streams.Keys.DLQ())
		out.DLQStreamLength = n
		return err
	})
	g.Go(func() error {
		v, err := s.d.Streams.RedisVersion(gctx)
		out.RedisVersion = v
		return err
	})
}

// overviewPostgres starts the overview's PostgreSQL queries in g: the outbox backlog, the
// dead letters, the submissions by state.
func (s *Server) overviewPostgres(gctx context.Context, g *errgroup.Group, now time.Time, out *wire.Overview) {
	g.Go(func() error {
		n, oldest, err := store.OutboxBacklog(gctx, s.d.DB)
		out.Outbox = wire.OutboxStats{Backlog: n, OldestAgeMS: ageMS(now, oldest)}
		return err
	})
	g.Go(func() error {
		n, est, err := store.DeadLetterCount(gctx, s.d.DB)
		out.DeadLetters, out.DeadEstimated = n, est
		return err
	})
	g.Go(func() error {
		counts, err := store.StateCounts(gctx, s.d.DB)
		for _, c := range counts {
			out.Submissions = append(out.Submissions, wire.StateCount{State: string(c.State), Count: c.Count, Estimated: c.Estimated})
		}
		return err
	})
	g.Go(func() error {
		counts, err := store.RunCounts(gctx, s.d.DB)
		out.Runs = make([]wire.StateCount, 0, 4)
		for _, st := range []job.State{job.StateQueued, job.StateRunning, job.StateFinished, job.StateCanceled} {
			out.Runs = append(out.Runs, wire.StateCount{State: string(st), Count: counts[st]})
		}
		return err
	})
	g.Go(func() error {
		origins, err := store.RunOriginCounts(gctx, s.d.DB)
		out.RunOrigins = make([]wire.OriginCount, 0, len(origins))
		for _, o := range origins {
			out.RunOrigins = append(out.RunOrigins, wire.OriginCount{Origin: o.Origin, Count: o.Count})
		}
		return err
	})
	g.Go(func() error {
		b, err := store.RunCallbackCounts(gctx, s.d.DB)
		out.RunCallbacks = wire.RunCallbackStats{Pending: b.Pending, Failed: b.Failed,
			OldestPendingMS: ageMS(s.clock.Now(), b.OldestPending)}
		return err
	})
}

func ageMS(now time.Time, t *time.Time) int64 {
	if t == nil {
		return 0
	}
	return max(now.Sub(*t).Milliseconds(), 0)
}

// lanesFrom parses a lane parameter: one lane, or every lane when empty.
func lanesFrom(v string) ([]job.Lane, error) {
	if v == "" {
		return job.Lanes, nil
	}
	l, err := job.ParseLane(v)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, codeBadRequest, "lane: %v", err)
	}
	return []job.Lane{l}, nil
}

// pel is GET /admin/v1/pel?lane=&min_idle_ms=&limit=: pending entries, oldest first, at
// most limit per lane (XPENDING's extended form, always with a COUNT).
func (s *Server) pel(w http.ResponseWriter, r *http.Request, _ *store.Token) error {
	lanes, err := lanesFrom(r.URL.Query().Get("lane"))
	if err != nil {
		return err
	}
	minIdle, err := queryInt(r, "min_idle_ms", 0, 0)
	if err != nil {
		return err
	}
	limit, err := queryInt(r, "limit", 100, 1000)
	if err != nil {
		return err
	}
	out := wire.PEL{Entries: []wire.PendingEntry{}}
	for _, lane := range lanes {
		ps, err := s.d.Streams.Pending(r.Context(), lane, time.Duration(minIdle)*time.Millisecond, "-", int(limit))
		if err != nil {
			return unavailable("pending entries", err)
		}
		for _, p := range ps {
			out.Entries = append(out.Entries, wire.PendingEntry{Lane: string(lane), StreamID: p.ID,
				SubmissionID: p.SubmissionID, Consumer: p.Consumer, IdleMS: p.Idle.Milliseconds(),
				Deliveries: p.Deliveries, Deleted: p.Deleted})
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// reportsInactive says whether XINFO CONSUMERS of this Redis version has the "inactive"
// field (7.2 and later). Without it the client reads 0, which would claim a consumer that
// never read was active a moment ago.
func reportsInactive(version string) bool {
	f := strings.SplitN(version, ".", 3)
	if len(f) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(f[0])
	minor, err2 := strconv.Atoi(f[1])
	return err1 == nil && err2 == nil && (major > 7 || major == 7 && minor >= 2)
}

// workers is GET /admin/v1/workers: each lane's consumers (XINFO CONSUMERS), the live
// leases in PostgreSQL grouped by worker, and the workers' rows (state, lanes, languages,
// last seen, recent errors).
func (s *Server) workers(w http.ResponseWriter, r *http.Request, _ *store.Token) error {
	out := wire.Workers{Lanes: []wire.LaneConsumers{}, Leases: []wire.LeaseSummary{}}
	version, err := s.d.Streams.RedisVersion(r.Context())
	if err != nil {
		return unavailable("redis version", err)
	}
	for _, lane := range job.Lanes {
		cs, err := s.d.Streams.Consumers(r.Context(), lane)
		if err != nil {
			return unavailable("consumers", err)
		}
		lc := wire.LaneConsumers{Lane: string(lane), Consumers: []wire.Consumer{}}
		for _, c := range cs {
			wc := wire.Consumer{Name: c.Name, Pending: c.Pending, IdleMS: c.Idle.Milliseconds()}
			if reportsInactive(version) {
				ms := max(c.Inactive.Milliseconds(), -1)
				wc.InactiveMS = &ms
			}
			lc.Consumers = append(lc.Consumers, wc)
		}
		out.Lanes = append(out.Lanes, lc)
	}
	leases, err := store.LiveLeases(r.Context(), s.d.DB, s.clock.Now())
	if err != nil {
		return unavailable("live leases", err)
	}
	for _, l := range leases {
		out.Leases = append(out.Leases, wire.LeaseSummary{Owner: l.Owner, Count: l.Count, Expired: l.Expired,
			OldestStarted: l.OldestStarted, NextExpiry: l.NextExpiry})
	}
	if out.Workers, err = s.workerInfos(r.Context(), leases); err != nil {
		return unavailable("workers", err)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
