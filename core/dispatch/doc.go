// Package dispatch moves work from PostgreSQL to Redis. The relay turns outbox rows into
// stream entries: it locks a batch with FOR UPDATE SKIP LOCKED (so replicas share the
// work), XADDs it in one pipeline, and marks the rows delivered in the same transaction; it
// wakes on LISTEN oj_outbox instead of polling. An entry may be added twice if the commit
// after the XADD fails — the worker's claim makes that harmless. The reconciler re-drives
// live submissions whose entry Redis no longer has (data lost, entry trimmed) and whose
// lease is not live, so losing Redis loses no submission. It also sends the webhooks:
// the fan-out of the results feed to deliveries (webhooks.go) and their tries
// (webhook_send.go, core/webhook).
package dispatch

import (
	"context"
	"fmt"
	"time"

	"oj/core/job"
	"oj/core/store"
	"oj/core/webhook"
)

// Config configures the relay and the reconciler.
type Config struct {
	BatchSize         int           `mapstructure:"batch_size"`
	Relays            int           `mapstructure:"relays"`
	PollInterval      time.Duration `mapstructure:"poll_interval"`
	RetryBase         time.Duration `mapstructure:"retry_base"`
	RetryMax          time.Duration `mapstructure:"retry_max"`
	ReconcileInterval time.Duration `mapstructure:"reconcile_interval"`
	ReconcileAfter    time.Duration `mapstructure:"reconcile_after"`
	ReconcileBatch    int           `mapstructure:"reconcile_batch"`
	// Retention keeps delivered outbox rows this long: the reconciler and the reclaim
	// loop map stream entry ids back to submissions through them. At thousands of
	// submissions a second a day of rows would bloat the table.
	Retention time.Duration `mapstructure:"retention"`
	// FairRelease releases each lane's job rows in fair order, only as many as keep its
	// workers busy (see fair.go); false relays every committed row at once, first come
	// first served.
	FairRelease bool `mapstructure:"fair_release"`
	// FairLookahead is how much of a lane's recent consumption the window holds beyond
	// its workers' slots, so that a fast lane never waits on the relay.
	FairLookahead time.Duration `mapstructure:"fair_lookahead"`
	// LaneStallAfter is how long a lane may stay shut — no room for its due rows, its
	// group read no further, its live workers with free slots — before the watchdog
	// re-examines it from scratch and releases (stall.go); 0 turns the watchdog off.
	LaneStallAfter time.Duration `mapstructure:"lane_stall_after"`
	// Events is the results feed's part (key "events" of ojd.yaml, not "dispatcher":
	// the API reads the feed, the dispatcher keeps it).
	Events EventsConfig `mapstructure:"-"`
	// Webhooks configures the webhooks the dispatcher sends (key "webhooks").
	Webhooks webhook.Config `mapstructure:"-"`
	// Runs is the runs' part (key "runs"): the dispatcher deletes runs older than
	// Runs.Retention.
	Runs job.RunsConfig `mapstructure:"-"`
	// RunCallbackBody renders the body of a run's callback (the run ended: finished,
	// dead or canceled), once, at its first try; the same bytes go out on every try. It
	// is the face's that made the run (the Judge0 face renders a Judge0 submission),
	// chosen by run.Origin; nil sends the run as oj's own API shows it (wire.Run). An
	// error fails the callback for good (it is logged and counted).
	RunCallbackBody func(ctx context.Context, run *store.Submission) (contentType string, body []byte, err error) `mapstructure:"-"`
}

// EventsConfig configures the results feed (key "events").
type EventsConfig struct {
	// Retention keeps events this long: a cursor older than that answers 410. Older
	// events are deleted in batches, so the table never grows without bound.
	Retention time.Duration `mapstructure:"retention"`
}

// DefaultEventsConfig returns the defaults: a week of events.
func DefaultEventsConfig() EventsConfig { return EventsConfig{Retention: 7 * 24 * time.Hour} }

// Validate names the first bad key.
func (c EventsConfig) Validate() error {
	if c.Retention < time.Hour {
		return fmt.Errorf("events.retention: %v is under 1h (followers resume from cursors within it)", c.Retention)
	}
	return nil
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{
		BatchSize:         256,
		Relays:            2,
		PollInterval:      time.Second,
		RetryBase:         100 * time.Millisecond,
		RetryMax:          10 * time.Second,
		ReconcileInterval: 10 * time.Second,
		ReconcileAfter:    30 * time.Second,
		ReconcileBatch:    500,
		Retention:         time.Hour,
		FairRelease:       true,
		FairLookahead:     50 * time.Millisecond,
		LaneStallAfter:    30 * time.Second,
		Events:            DefaultEventsConfig(),
		Webhooks:          webhook.DefaultConfig(),
		Runs:              job.DefaultRunsConfig(),
	}
}

// Validate names the first bad key.
func (c Config) Validate() error {
	switch {
	case c.BatchSize < 1 || c.BatchSize > 10000:
		return fmt.Errorf("dispatcher.batch_size: %d not in 1..10000", c.BatchSize)
	case c.Relays < 1:
		return fmt.Errorf("dispatcher.relays: must be at least 1")
	case c.PollInterval <= 0:
		return fmt.Errorf("dispatcher.poll_interval: must be positive")
	case c.RetryBase <= 0 || c.RetryMax < c.RetryBase:
		return fmt.Errorf("dispatcher.retry_base/retry_max: need 0 < retry_base <= retry_max")
	case c.ReconcileInterval <= 0:
		return fmt.Errorf("dispatcher.reconcile_interval: must be positive")
	case c.ReconcileAfter <= 0:
		return fmt.Errorf("dispatcher.reconcile_after: must be positive")
	case c.ReconcileBatch < 1:
		return fmt.Errorf("dispatcher.reconcile_batch: must be at least 1")
	case c.Retention < time.Minute:
		return fmt.Errorf("dispatcher.retention: must be at least 1m")
	case c.FairLookahead < 0 || c.FairLookahead > 10*time.Second:
		return fmt.Errorf("dispatcher.fair_lookahead: %v not in 0..10s", c.FairLookahead)
	case c.LaneStallAfter < 0 || c.LaneStallAfter > 0 && c.LaneStallAfter < 100*time.Millisecond:
		return fmt.Errorf("dispatcher.lane_stall_after: %v is neither 0 (off) nor at least 100ms", c.LaneStallAfter)
	}
	return nil
}
