package worker

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"oj/core/clock"
	"oj/core/job"
	"oj/core/judge"
	"oj/core/store"
	"oj/core/stream"
)

// Judge decides a verdict. An error means "could not decide" (a system failure): the
// attempt is retried up to the bound and then dead-lettered — except a permanent one
// (judge.IsPermanent: a broken package), which ends the submission at once as SE with
// the error as its reason.
type Judge interface {
	Judge(ctx context.Context, t job.Task) (job.Outcome, error)
}

// Decider is a Judge that leaves storing a decision's artefacts (compile log, output
// excerpts) to a step of its own, as judge.Judge does. The worker runs that step once
// the judging slot is free and before the verdict is written back: a slow disk or
// object store never holds a judging slot, and the artefacts are there when the
// verdict is seen.
type Decider interface {
	Decide(ctx context.Context, t job.Task) (judge.Decision, error)
}

// LostEntries takes the ids of pending entries that vanished from a lane's stream; the
// dispatcher's reconciler implements it.
type LostEntries interface {
	RedriveLost(ctx context.Context, lane job.Lane, entryIDs []string) (int, error)
}

// Worker judges submissions of the lanes it is configured for.
type Worker struct {
	cfg     Config
	db      *pgxpool.Pool
	streams *stream.Streams
	judge   Judge
	lost    LostEntries
	clock   clock.Clock
	log     *slog.Logger
	m       *Metrics

	results chan result

	mu       sync.Mutex
	inflight map[string]*run // by submission id

	// gate is the state the worker obeys (state.go); health its streak of system errors.
	gate   *gate
	health *health
	// selfCheck is re-run while quarantined (quarantine.go); nil: only an operator lifts one.
	selfCheck func(ctx context.Context) error

	// afterCommit, when set (tests only), runs after each finalize commit, before the
	// attempts it decided are forgotten.
	afterCommit func()
}

// run is one claimed attempt, from its claim until its fate is written back.
type run struct {
	task    job.Task
	entries []string // stream entries that carried it, acked together
	cancel  context.CancelCauseFunc
	started time.Time
	// hold is the lane capacity the run holds: its judging slot while the judge runs, then
	// its write-back token once handed over (lane.handOver). done releases it.
	hold chan struct{}
	// phase is phaseJudging, then phaseWriting once the judge returned, then phaseDecided
	// once PostgreSQL decided the attempt's fate. Heartbeats extend the lease until it is
	// decided and only a judging attempt is stopped for a lost lease: past that, the
	// fenced write-back itself says what became of it.
	phase atomic.Int32
}

const (
	phaseJudging int32 = iota
	phaseWriting
	phaseDecided
)

type result struct {
	run     *run
	outcome job.Outcome
	// reason is the error of an SE verdict the worker decided itself (a judge panic, a
	// result PostgreSQL refused).
	reason string
	// refused is set once the outcome was replaced by SE because PostgreSQL refused it.
	refused bool
}

// lane is one lane's share of a Run: the lane, its capacity and the shift it works in.
// Its read and reclaim loops, its claims, drops and judging starts are its methods, so
// these values are not threaded through every call; the worker's own parts (store,
// streams, metrics, log) are embedded.
//
// The capacity is two pools, each as large as the lane's concurrency. A judging slot is
// held from the read until the judge returns; a write-back token from then until the
// verdict is written back and acked (or the attempt ended). The slot is thus free for the
// next submission while PostgreSQL and Redis still work on the last one, and at most
// 2×concurrency submissions of the lane are claimed at once: when write-backs pile up,
// the judges that returned wait for a token while still holding their slots, and reading
// stops.
type lane struct {
	*Worker
	lane   job.Lane
	slots  chan struct{}
	writes chan struct{}
	sh     *shift
}

// shift is what one Run shares with its loops.
type shift struct {
	// judgeCtx ends when the shutdown grace is over: judging still in flight is given back.
	judgeCtx context.Context
	// storeCtx ends at the shutdown deadline (grace + store_timeout): every PostgreSQL call
	// of the write-back path stops, so a shutdown never waits on PostgreSQL.
	storeCtx context.Context
	judges   sync.WaitGroup
}

var (
	errShutdown         = errors.New("worker shutting down")
	errShutdownDeadline = errors.New("worker shutdown deadline passed")
)

// New returns a worker; lost may be nil (deleted entries are then left to the reconciler's
// periodic scan).
func New(cfg Config, db *pgxpool.Pool, streams *stream.Streams, judge Judge, lost LostEntries, clk clock.Clock, log *slog.Logger, m *Metrics) *Worker {
	if cfg.Name == "" {
		cfg.Name = defaultName()
	}
	def := DefaultConfig()
	if cfg.StoreTimeout <= 0 {
		cfg.StoreTimeout = def.StoreTimeout
	}
	if cfg.StatePoll <= 0 {
		cfg.StatePoll = def.StatePoll
	}
	if cfg.HandBackDelay <= 0 {
		cfg.HandBackDelay = def.HandBackDelay
	}
	if cfg.QuarantineRecheck <= 0 {
		cfg.QuarantineRecheck = def.QuarantineRecheck
	}
	if cfg.QuarantineRecheckMax < cfg.QuarantineRecheck {
		cfg.QuarantineRecheckMax = max(def.QuarantineRecheckMax, cfg.QuarantineRecheck)
	}
	return &Worker{cfg: cfg, db: db, streams: streams, judge: judge, lost: lost, clock: clk,
		log: log.With("worker", cfg.Name), m: m, results: make(chan result, 1024), inflight: map[string]*run{},
		gate: newGate(), health: &health{after: cfg.QuarantineAfter}}
}

// Name is the worker's consumer name and lease owner.
func (w *Worker) Name() string { return w.cfg.Name }

// Run works until ctx ends, then shuts down gracefully: it stops reading, lets in-flight
// judging finish for up to shutdown_grace, gives back what is still running (a new entry
// through the outbox, the attempt not counted as a failure), writes back and acks. It
// returns by shutdown_grace + store_timeout after ctx ended whatever PostgreSQL does:
// what could not be written back by then stays pending, and its lease expires for
// reclaim (invariant 6).
func (w *Worker) Run(ctx context.Context) error {
	judgeCtx, stopJudging := context.WithCancelCause(context.WithoutCancel(ctx))
	defer stopJudging(errShutdown)
	storeCtx, stopStore := context.WithCancelCause(context.WithoutCancel(ctx))
	defer stopStore(errShutdown)
	sh := &shift{judgeCtx: judgeCtx, storeCtx: storeCtx}
	var readers sync.WaitGroup
	for name, n := range w.cfg.Concurrency {
		if n <= 0 {
			continue
		}
		l := &lane{Worker: w, lane: job.Lane(name), slots: make(chan struct{}, n), writes: make(chan struct{}, n), sh: sh}
		if err := w.streams.EnsureGroup(ctx, l.lane); err != nil {
			w.log.Warn("ensure group", "lane", l.lane, "err", err)
		}
		readers.Add(2)
		go func() { defer readers.Done(); l.readLoop(ctx) }()
		go func() { defer readers.Done(); l.reclaimLoop(ctx) }()
	}
	finalizerDone := make(chan struct{})
	go func() { defer close(finalizerDone); w.finalizeLoop(storeCtx) }()
	heartbeatCtx, stopHeartbeat := context.WithCancel(storeCtx)
	defer stopHeartbeat()
	go w.heartbeatLoop(heartbeatCtx)
	announced := make(chan struct{})
	go func() { defer close(announced); w.stateLoop(ctx) }()
	defer func() { <-announced }()
	rechecked := make(chan struct{})
	go func() { defer close(rechecked); w.recheckLoop(ctx) }()
	defer func() { <-rechecked }()

	<-ctx.Done()
	deadline := time.AfterFunc(w.cfg.ShutdownGrace+w.cfg.StoreTimeout, func() { stopStore(errShutdownDeadline) })
	defer deadline.Stop()
	readers.Wait()
	w.log.Info("worker stopping: no more reads, waiting for in-flight judging", "in_flight", w.inFlight(), "grace", w.cfg.ShutdownGrace.String())
	done := make(chan struct{})
	go func() { sh.judges.Wait(); close(done) }()
	grace := time.NewTimer(w.cfg.ShutdownGrace)
	defer grace.Stop()
	select {
	case <-done:
	case <-grace.C:
		w.log.Warn("shutdown grace over: giving back in-flight submissions", "in_flight", w.inFlight())
		stopJudging(errShutdown)
		select {
		case <-done:
		case <-storeCtx.Done():
			// A judge that ignores its context must not hold the process: its lease expires.
			w.log.Error("shutdown deadline passed with judging still running; leaving it to reclaim", "in_flight", w.inFlight())
			<-finalizerDone
			return nil
		}
	}
	close(w.results)
	<-finalizerDone // returns at the deadline at the latest: its PostgreSQL calls end with storeCtx
	if n := w.inFlight(); n > 0 {
		w.log.Warn("stopped with verdicts not written back; their leases expire and reclaim judges them again", "count", n)
	}
	return nil
}

func (w *Worker) inFlight() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.inflight)
}

// takeSlots blocks for one free slot, then takes up to want-1 more without blocking.
func takeSlots(ctx context.Context, slots chan struct{}, want int) int {
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		return 0
	}
	n := 1
	for n < want {
		select {
		case slots <- struct{}{}:
			n++
		default:
			return n
		}
	}
	return n
}

func release(slots chan struct{}, n int) {
	for i := 0; i < n; i++ {
		<-slots
	}
}

func (l *lane) readLoop(ctx context.Context) {
	failures := 0
	for ctx.Err() == nil {
		if !l.waitClaiming(ctx) {
			return
		}
		n := takeSlots(ctx, l.slots, cap(l.slots))
		if n == 0 {
			return
		}
		entries, err := l.streams.Read(ctx, l.lane, l.cfg.Name, n, l.cfg.ReadBlock)
		if err != nil {
			release(l.slots, n)
			if ctx.Err() != nil {
				return
			}
			if stream.IsNoGroup(err) {
				// Redis lost the stream or the group: recreate it; the reconciler re-drives
				// whatever the lost entries carried.
				l.log.Warn("consumer group missing, recreating", "lane", l.lane)
				if err := l.streams.EnsureGroup(ctx, l.lane); err == nil && failures == 0 {
					// Read again at once; a NOGROUP again (a failover still settling)
					// backs off below like any error, so this never spins.
					failures++
					continue
				}
			}
			failures++
			l.m.Errors.WithLabelValues("read").Inc()
			l.log.Warn("read stream", "lane", l.lane, "err", err)
			clock.Sleep(ctx, job.Backoff(100*time.Millisecond, 5*time.Second, failures))
			continue
		}
		failures = 0
		release(l.slots, n-len(entries))
		if len(entries) > 0 {
			l.handle(ctx, entries, false)
		}
	}
}

// handle claims the submissions that entries carry and starts judging the claimed ones.
// It holds one judging slot per entry on entry: a claimed submission's slot passes to its
// run (start), the others are released.
func (l *lane) handle(ctx context.Context, entries []stream.Entry, reclaimed bool) {
	g := stream.GroupBySubmission(entries)
	ids, bySub := g.IDs, g.Entries
	junk := make([]string, 0, len(g.Malformed))
	for _, e := range g.Malformed {
		// Never judgeable, and poison for the claim batch: drop it, whatever the path.
		l.m.Claims.WithLabelValues(string(l.lane), "malformed").Inc()
		l.log.Warn("dropping a malformed stream entry", "lane", l.lane, "entry", e.ID, "reason", e.Malformed, "reclaim", reclaimed)
		junk = append(junk, e.ID)
	}
	used := 0
	defer func() { release(l.slots, len(entries)-used) }()
	l.drop(ctx, junk)
	if len(ids) == 0 {
		return
	}
	var ack []string
	parked := false
	res, err := l.claim(ctx, ids, bySub)
	if err != nil {
		// PostgreSQL could not decide (some of) them: those entries stay pending and come
		// back through reclaim (invariant 5).
		l.m.Errors.WithLabelValues("claim").Inc()
		l.log.Error("claim", "lane", l.lane, "entries", len(entries), "err", err)
		defer clock.Sleep(ctx, time.Second)
	}
	for _, r := range res {
		entryIDs := bySub[r.ID]
		if reclaimed {
			l.m.Reclaimed.WithLabelValues(string(l.lane), r.Outcome.String()).Inc()
		}
		l.m.Claims.WithLabelValues(string(l.lane), r.Outcome.String()).Inc()
		switch r.Outcome {
		case store.Claimed:
			used++
			l.start(r.Task, entryIDs)
		case store.Leased:
			if !reclaimed {
				ack = append(ack, entryIDs...) // a duplicate: the holder has its own entry
			}
			l.log.Debug("submission leased elsewhere", "submission_id", r.ID, "attempt", r.Attempt, "reclaim", reclaimed)
		case store.AlreadyTerminal, store.NotFound:
			ack = append(ack, entryIDs...)
			l.log.Info("entry needs no judging", "submission_id", r.ID, "attempt", r.Attempt, "reason", r.Outcome.String())
		case store.Incapable, store.Parked:
			parked = parked || r.Outcome == store.Parked
			l.handBack(ctx, r, entryIDs)
		case store.Exhausted:
			e := store.Ending{Cause: "lease expired: the worker judging it stopped answering", CountsAsFailure: true, LeaseExpired: true}
			st, err := store.EndAttempt(ctx, l.db, l.cfg.Name, store.Lease{ID: r.ID, Attempt: r.Attempt}, e, l.clock.Now())
			if l.decided(err) {
				ack = append(ack, entryIDs...)
			}
			l.logEnd(r.ID, r.Attempt, "", st, e.Cause, err)
		}
	}
	l.ack(ctx, l.lane, ack)
	if parked {
		// PostgreSQL says this worker is no longer active: obey now rather than at the next
		// state poll, so that it does not read and hand back entry after entry meanwhile.
		l.readState(ctx)
	}
}
