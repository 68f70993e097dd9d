package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"oj/core/dispatch"
	"oj/core/store"
	"oj/core/stream"
)

// deps are the connections and shared parts every daemon needs.
type deps struct {
	cfg     *Config
	log     *slog.Logger
	db      *pgxpool.Pool
	rdb     redis.UniversalClient
	streams *stream.Streams
	reg     *prometheus.Registry
	// dispatchMetrics is shared: in one process the dispatcher and the worker's hand-off
	// to the reconciler count into the same series.
	dispatchMetrics *dispatch.Metrics
}

func newLogger(c LogConfig) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(c.Level))
	opts := &slog.HandlerOptions{Level: level}
	if c.Format == "text" {
		return slog.New(slog.NewTextHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, opts))
}

// connect opens PostgreSQL and Redis. Neither needs to be up yet: the pools connect
// lazily, and the daemons retry, so a unit may start before its databases.
func connect(ctx context.Context, cfg *Config) (*deps, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	db, err := store.NewPool(ctx, cfg.Postgres, store.NewPoolMetrics(reg))
	if err != nil {
		return nil, err
	}
	rdb, err := stream.NewClient(cfg.Redis, stream.NewClientMetrics(reg))
	if err != nil {
		db.Close()
		return nil, err
	}
	return &deps{cfg: cfg, log: newLogger(cfg.Log), db: db, rdb: rdb,
		streams: stream.New(rdb, stream.Keys{Prefix: cfg.Redis.KeyPrefix}), reg: reg,
		dispatchMetrics: dispatch.NewMetrics(reg)}, nil
}

// checkRedis stops the start when Redis refuses oj's TLS or credentials, and warns
// once about the settings oj relies on (appendonly, maxmemory-policy). Redis being down
// is not an error here: it may come up later.
func (d *deps) checkRedis(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := stream.CheckReach(ctx, d.rdb); err != nil {
		return err
	}
	warnings, err := stream.CheckServer(ctx, d.rdb)
	for _, w := range warnings {
		d.log.Warn("redis: " + w)
	}
	if err != nil && ctx.Err() == nil {
		d.log.Warn("could not check the Redis settings at start", "err", err)
	}
	return nil
}

// closeWait bounds how long Close waits for the PostgreSQL pool to close.
const closeWait = 3 * time.Second

// Close closes the connections. A pool's Close waits for every connection to come back;
// a PostgreSQL that hangs must not hold the process's exit (the daemons have bounded their
// own calls already), so it is waited for closeWait at most.
func (d *deps) Close() {
	closed := make(chan struct{})
	go func() { d.db.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(closeWait):
		d.log.Warn("postgres pool did not close in time; exiting without it", "waited", closeWait.String())
	}
	_ = d.rdb.Close()
}

// signalContext ends on the first SIGINT or SIGTERM; a second one ends the process at once
// (the default action), for an operator who does not want to wait for the shutdown grace.
func signalContext() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}
