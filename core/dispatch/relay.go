package dispatch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"oj/core/clock"
	"oj/core/job"
	"oj/core/ops"
	"oj/core/render"
	"oj/core/store"
	"oj/core/stream"
	"oj/core/webhook"
)

// Dispatcher runs the relay and the reconciler.
type Dispatcher struct {
	cfg     Config
	db      *pgxpool.Pool
	streams *stream.Streams
	clock   clock.Clock
	log     *slog.Logger
	metrics *Metrics
	wake    chan struct{}
	fair    *fairness
	// name is this dispatcher's, on the webhook deliveries it leases.
	name string
	// feedWake and sendWake wake the webhook fan-out (oj_feed: events committed) and
	// senders (oj_webhooks: deliveries written or due again).
	feedWake, sendWake chan struct{}
	// callbackWake wakes the run callback senders (oj_webhooks too).
	callbackWake chan struct{}
	// stragglers are the fan-out's tries still running after their page was written.
	stragglers sync.WaitGroup
	sender     *webhook.Sender
	views      render.Visibilities
	ops        *ops.Ops
	capable    capability
}

// New returns a dispatcher.
func New(cfg Config, db *pgxpool.Pool, streams *stream.Streams, clk clock.Clock, log *slog.Logger, m *Metrics) *Dispatcher {
	return &Dispatcher{cfg: cfg, db: db, streams: streams, clock: clk, log: log, metrics: m, wake: make(chan struct{}, 1),
		fair: newFairness(), name: dispatcherName(), feedWake: make(chan struct{}, 1), sendWake: make(chan struct{}, 1),
		callbackWake: make(chan struct{}, 1), sender: webhook.NewSender(cfg.Webhooks), ops: ops.New(db, streams, clk, log)}
}

// dispatcherName names this dispatcher on what it leases: host, process and a random
// part, so that a restarted dispatcher never takes its predecessor's leases for its own.
func dispatcherName() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b))
}

// Run relays and reconciles until ctx ends.
func (d *Dispatcher) Run(ctx context.Context) error {
	for _, lane := range job.Lanes {
		if err := d.streams.EnsureGroup(ctx, lane); err != nil {
			d.log.Warn("ensure group", "lane", lane, "err", err)
		}
	}
	defer d.sender.Close()
	var wg sync.WaitGroup
	wg.Add(5 + d.cfg.Relays)
	go func() { defer wg.Done(); d.listen(ctx) }()
	go func() { defer wg.Done(); d.reconcileLoop(ctx) }()
	go func() { defer wg.Done(); d.fanoutLoop(ctx) }()
	go func() { defer wg.Done(); d.sendLoop(ctx) }()
	go func() { defer wg.Done(); d.callbackLoop(ctx) }()
	for i := 0; i < d.cfg.Relays; i++ {
		go func() { defer wg.Done(); d.relayLoop(ctx) }()
	}
	wg.Wait()
	return nil
}

func (d *Dispatcher) poke() { wake(d.wake) }

// wake wakes whoever waits on c, or leaves a wake-up there for its next wait.
func wake(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// listen turns NOTIFY oj_outbox into wake-ups, reconnecting after errors.
func (d *Dispatcher) listen(ctx context.Context) {
	for ctx.Err() == nil {
		err := d.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		d.log.Warn("outbox listener", "err", err)
		clock.Sleep(ctx, time.Second)
	}
}

func (d *Dispatcher) listenOnce(ctx context.Context) error {
	conn, err := d.db.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	// oj_outbox: rows were committed. oj_events: a state changed — when a worker claims
	// a submission it has read an entry, so a lane holding rows back has room again.
	// oj_feed: events were committed (the webhook fan-out); oj_webhooks: deliveries were
	// written or made due (the webhook senders).
	if _, err := conn.Exec(ctx, "LISTEN oj_outbox; LISTEN oj_events; LISTEN oj_feed; LISTEN oj_webhooks"); err != nil {
		conn.Conn().Close(ctx)
		return err
	}
	// Rows, events and deliveries may have arrived while we were not listening.
	d.poke()
	wake(d.feedWake)
	wake(d.sendWake)
	wake(d.callbackWake)
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			conn.Conn().Close(context.Background()) // never return a LISTENing connection to the pool
			return err
		}
		switch {
		case n.Channel == "oj_feed":
			wake(d.feedWake)
		case n.Channel == "oj_webhooks":
			wake(d.sendWake)
			wake(d.callbackWake)
		case n.Channel == "oj_outbox" || d.anyHeld():
			d.poke()
		}
	}
}

func (d *Dispatcher) relayLoop(ctx context.Context) {
	failures, quick := 0, 0
	for ctx.Err() == nil {
		n, err := d.RelayOnce(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			failures++
			wait := job.Backoff(d.cfg.RetryBase, d.cfg.RetryMax, failures)
			d.log.Warn("relay", "err", err, "retry_in", wait)
			clock.Sleep(ctx, wait)
			continue
		case n > 0:
			failures = 0
			continue // more may be waiting, or have room now
		}
		failures = 0
		idle := d.cfg.PollInterval
		if d.anyHeld() {
			// Rows wait for room: a claim or a finish (oj_events) wakes the relay, and this
			// bounds the wait when a notification is missed.
			idle = min(idle, heldPoll)
			if d.settlingNow() && quick < settleTries {
				// A finish woke it a moment before its entry was acknowledged: the room
				// is there within milliseconds, and a slot is waiting for it.
				idle, quick = settlePoll, quick+1
			} else {
				quick = 0
			}
		}
		select {
		case <-ctx.Done():
		case <-d.wake:
		case <-time.After(idle):
		}
	}
}

// heldPoll bounds how long rows waiting for room wait for the relay to look again;
// settlePoll is the wait instead, settleTries times in a row, while room is settling.
const (
	heldPoll    = 100 * time.Millisecond
	settlePoll  = 5 * time.Millisecond
	settleTries = 4
)

// RelayOnce relays one batch of due rows that are not jobs, then each job lane's due
// rows in fair order as far as the lane has room (fair.go), of the languages its live
// workers run (capable.go). It returns how many rows it relayed.
func (d *Dispatcher) RelayOnce(ctx context.Context) (int, error) {
	total, err := d.relayRows(ctx, func(db store.DB) ([]store.OutboxRow, error) {
		return store.ClaimOutbox(ctx, db, d.cfg.BatchSize)
	})
	if err != nil {
		return 0, err
	}
	d.fair.mu.Lock()
	d.fair.settling = false
	d.fair.mu.Unlock()
	live := d.capacity(ctx)
	d.countHeld(ctx)
	for _, lane := range job.Lanes {
		var rm laneRoom
		var limit int
		var watchdog bool
		n, err := d.relayRows(ctx, func(db store.DB) ([]store.OutboxRow, error) {
			running := 0
			if d.cfg.FairRelease {
				// The room is read and filled under the lane's lock, so that another
				// relay does not fill it as well.
				if err := store.LockLaneRelease(ctx, db, lane); err != nil {
					return nil, err
				}
				var err error
				if running, err = store.RunningInLane(ctx, db, lane); err != nil {
					return nil, err
				}
			}
			rm = d.room(ctx, lane, running)
			if rm.room < rm.least {
				if !d.stallDue(lane, rm, running) {
					return nil, nil
				}
				watchdog = true
				return d.reexamine(ctx, db, lane, running, languagesFor(live, lane), rm)
			}
			d.stallClear(lane)
			limit = min(rm.room, d.cfg.BatchSize)
			return store.ClaimLaneJobs(ctx, db, lane, limit, languagesFor(live, lane))
		})
		if err != nil {
			return total, err
		}
		total += n
		if rm.room < rm.least || watchdog {
			d.setHeld(lane, true, rm.settling)
			continue
		}
		// A lane that filled its room may have more waiting: held until a worker reads.
		d.setHeld(lane, n == limit && limit < d.cfg.BatchSize, rm.settling)
	}
	return total, nil
}

// relayRows relays the rows claim locks, in one transaction: XADD them in one
// pipeline, mark the ones added delivered and the others failed (retried with backoff).
// It returns how many rows it handled.
func (d *Dispatcher) relayRows(ctx context.Context, claim func(store.DB) ([]store.OutboxRow, error)) (int, error) {
	start := time.Now()
	var n int
	err := store.InTx(ctx, d.db, func(tx pgx.Tx) error {
		rows, err := claim(tx)
		if err != nil || len(rows) == 0 {
			return err
		}
		n = len(rows)
		adds := make([]stream.Add, len(rows))
		for i, r := range rows {
			adds[i] = stream.Add{Stream: d.streams.Keys.Stream(r.Lane), SubmissionID: r.SubmissionID, TraceID: r.TraceID}
		}
		entryIDs, errs := d.streams.AddBatch(ctx, adds)
		var okIDs, failedIDs []int64
		var okEntries []string
		var firstErr error
		attempts := 0
		for i, r := range rows {
			if errs[i] != nil {
				failedIDs = append(failedIDs, r.ID)
				if firstErr == nil {
					firstErr = errs[i]
				}
				attempts = max(attempts, r.Attempts+1)
				continue
			}
			okIDs = append(okIDs, r.ID)
			okEntries = append(okEntries, entryIDs[i])
			d.metrics.Relayed.WithLabelValues(r.Lane).Inc()
		}
		if len(okIDs) > 0 {
			if err := store.MarkDelivered(ctx, tx, okIDs, okEntries); err != nil {
				return err
			}
		}
		if len(failedIDs) > 0 {
			d.metrics.RelayErrors.Add(float64(len(failedIDs)))
			retry := job.Backoff(d.cfg.RetryBase, d.cfg.RetryMax, attempts)
			if err := store.MarkFailed(ctx, tx, failedIDs, firstErr.Error(), retry); err != nil {
				return err
			}
		}
		return nil
	})
	if n > 0 {
		d.metrics.RelayDuration.Observe(time.Since(start).Seconds())
	}
	if err != nil {
		return 0, fmt.Errorf("relay: %w", err)
	}
	return n, nil
}
