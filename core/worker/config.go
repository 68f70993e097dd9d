// Package worker claims submissions from the lane streams and judges them: XREADGROUP
// with a finite block, a batched claim in PostgreSQL (attempt+1 and a lease: the fencing
// token), heartbeats while judging, a batched fenced finalize, and XACK only after the
// commit that decided each entry's fate. A reclaim loop takes over entries idle in the
// group's pending list, but PostgreSQL decides whether their lease is really dead.
//
// A worker runs only what it can and may: it announces the languages its self-check
// passed and the lanes it reads (announce.go), the claim takes only those languages, and
// an entry it cannot run is handed back without spending an attempt (handback.go). It
// obeys the state an operator gives it in PostgreSQL — drain, disable, enable — and
// quarantines itself after worker.quarantine_after system errors of its own in a row,
// until its self-check passes again (quarantine.go).
package worker

import (
	"fmt"
	"os"
	"time"

	"oj/core/job"
)

// Config configures a worker.
type Config struct {
	// Name is the consumer name and lease owner; empty: host-pid-random.
	Name string `mapstructure:"name"`
	// Concurrency is how many submissions of each lane this worker judges at once; a lane
	// with 0 is not read. Lane run (worker.concurrency.run) is the runs': its slots are
	// its own, so a flood of runs never takes a judging slot.
	Concurrency       map[string]int `mapstructure:"concurrency"`
	Lease             time.Duration  `mapstructure:"lease"`
	HeartbeatInterval time.Duration  `mapstructure:"heartbeat_interval"`
	ReadBlock         time.Duration  `mapstructure:"read_block"`
	ReclaimInterval   time.Duration  `mapstructure:"reclaim_interval"`
	ReclaimMinIdle    time.Duration  `mapstructure:"reclaim_min_idle"`
	FinalizeBatch     int            `mapstructure:"finalize_batch"`
	FinalizeLinger    time.Duration  `mapstructure:"finalize_linger"`
	RetryBase         time.Duration  `mapstructure:"retry_base"`
	RetryMax          time.Duration  `mapstructure:"retry_max"`
	ShutdownGrace     time.Duration  `mapstructure:"shutdown_grace"`
	// StoreTimeout bounds each PostgreSQL call of the write-back path (finalize, end of an
	// attempt, heartbeat) and the storing of a verdict's artefacts before it, and how long
	// a shutdown may still write back after the grace:
	// Run returns by shutdown_grace + store_timeout whatever PostgreSQL does.
	StoreTimeout time.Duration `mapstructure:"store_timeout"`
	// ConsumerGCIdle removes consumers of the group (names of worker processes that are
	// gone) with nothing pending after this long idle; 0 keeps them.
	ConsumerGCIdle time.Duration `mapstructure:"consumer_gc_idle"`
	// ToolBuilds is how many uploaded packages' checkers and interactors this worker
	// compiles at once for the API (each in a sandbox slot of its own, besides judging).
	ToolBuilds int `mapstructure:"tool_builds"`
	// Languages limits the languages this worker judges; empty: every language its
	// self-check passed. ojd sets the effective list (this list, less what failed the
	// self-check) before the worker starts: it is what the worker announces and the only
	// languages it claims.
	Languages []string `mapstructure:"languages"`
	// LanguageNames are the names, with the versions its self-check detected, of the
	// languages the worker judges (id → name; set by ojd, announced with Languages).
	LanguageNames map[string]string `mapstructure:"-"`
	// StatePoll is how often the worker rereads its state (drain, disable, enable,
	// quarantine) from PostgreSQL.
	StatePoll time.Duration `mapstructure:"state_poll"`
	// QuarantineAfter quarantines the worker when that many attempts in a row ended in
	// system errors (the judge could not decide: a sandbox failure, a missing toolchain, a
	// panic); 0 never does.
	QuarantineAfter int `mapstructure:"quarantine_after"`
	// QuarantineRecheck is how long a quarantined worker waits before it re-runs its
	// self-check; each failed check doubles the wait, up to QuarantineRecheckMax. A
	// check that passes lifts the quarantine (an operator's drain or disable stays).
	QuarantineRecheck    time.Duration `mapstructure:"quarantine_recheck"`
	QuarantineRecheckMax time.Duration `mapstructure:"quarantine_recheck_max"`
	// HandBackDelay is how long a submission this worker cannot run waits in the outbox
	// after the worker handed it back (handback.go).
	HandBackDelay time.Duration `mapstructure:"handback_delay"`
}

// DefaultConfig returns the defaults: one slot per lane, 30 s leases.
func DefaultConfig() Config {
	return Config{
		Concurrency:       map[string]int{"light": 2, "heavy": 2, "rejudge": 1, "run": 1},
		Lease:             30 * time.Second,
		HeartbeatInterval: 10 * time.Second,
		ReadBlock:         2 * time.Second,
		ReclaimInterval:   15 * time.Second,
		ReclaimMinIdle:    45 * time.Second,
		FinalizeBatch:     128,
		FinalizeLinger:    2 * time.Millisecond,
		RetryBase:         2 * time.Second,
		RetryMax:          2 * time.Minute,
		ShutdownGrace:     30 * time.Second,
		StoreTimeout:      5 * time.Second,
		ConsumerGCIdle:    time.Hour,
		ToolBuilds:        2,
		StatePoll:         2 * time.Second,
		QuarantineAfter:   5,
		// A fault fixed by hand is noticed within a minute; one that lasts costs a
		// sandboxed run every 15 minutes at most.
		QuarantineRecheck:    time.Minute,
		QuarantineRecheckMax: 15 * time.Minute,
		HandBackDelay:        2 * time.Second,
	}
}

// Validate names the first bad key.
func (c Config) Validate() error {
	total := 0
	for lane, n := range c.Concurrency {
		if _, err := job.ParseLane(lane); err != nil {
			return fmt.Errorf("worker.concurrency.%s: %w", lane, err)
		}
		if n < 0 || n > 1024 {
			return fmt.Errorf("worker.concurrency.%s: %d not in 0..1024", lane, n)
		}
		total += n
	}
	switch {
	case total == 0:
		return fmt.Errorf("worker.concurrency: every lane is 0, nothing would be judged")
	case c.Lease < time.Second:
		return fmt.Errorf("worker.lease: %s is under 1s", c.Lease)
	case c.HeartbeatInterval <= 0 || c.HeartbeatInterval*2 > c.Lease:
		return fmt.Errorf("worker.heartbeat_interval: must be positive and at most half of worker.lease")
	case c.ReadBlock <= 0 || c.ReadBlock > time.Minute:
		return fmt.Errorf("worker.read_block: must be in (0, 1m] (a finite block keeps shutdown quick)")
	case c.ReclaimInterval <= 0:
		return fmt.Errorf("worker.reclaim_interval: must be positive")
	case c.ReclaimMinIdle <= 0:
		return fmt.Errorf("worker.reclaim_min_idle: must be positive")
	case c.FinalizeBatch < 1:
		return fmt.Errorf("worker.finalize_batch: must be at least 1")
	case c.FinalizeLinger < 0:
		return fmt.Errorf("worker.finalize_linger: must not be negative")
	case c.RetryBase <= 0 || c.RetryMax < c.RetryBase:
		return fmt.Errorf("worker.retry_base/retry_max: need 0 < retry_base <= retry_max")
	case c.ShutdownGrace < 0:
		return fmt.Errorf("worker.shutdown_grace: must not be negative")
	case c.StoreTimeout <= 0 || c.StoreTimeout > c.Lease:
		return fmt.Errorf("worker.store_timeout: must be positive and at most worker.lease")
	case c.ConsumerGCIdle != 0 && c.ConsumerGCIdle < c.ReclaimMinIdle:
		return fmt.Errorf("worker.consumer_gc_idle: must be 0 or at least worker.reclaim_min_idle")
	case c.ToolBuilds < 1 || c.ToolBuilds > 64:
		return fmt.Errorf("worker.tool_builds: %d not in 1..64", c.ToolBuilds)
	case c.StatePoll < 100*time.Millisecond || c.StatePoll > time.Minute:
		return fmt.Errorf("worker.state_poll: %v not in 100ms..1m (a drain or disable is obeyed within it)", c.StatePoll)
	case c.QuarantineAfter < 0 || c.QuarantineAfter > 1000:
		return fmt.Errorf("worker.quarantine_after: %d not in 0..1000 (0: never quarantine)", c.QuarantineAfter)
	case c.QuarantineRecheck < 100*time.Millisecond || c.QuarantineRecheck > time.Hour:
		return fmt.Errorf("worker.quarantine_recheck: %v not in 100ms..1h", c.QuarantineRecheck)
	case c.QuarantineRecheckMax < c.QuarantineRecheck || c.QuarantineRecheckMax > 24*time.Hour:
		return fmt.Errorf("worker.quarantine_recheck_max: %v not in worker.quarantine_recheck (%v)..24h", c.QuarantineRecheckMax, c.QuarantineRecheck)
	case c.HandBackDelay < 100*time.Millisecond || c.HandBackDelay > time.Minute:
		return fmt.Errorf("worker.handback_delay: %v not in 100ms..1m (it keeps a submission this worker cannot run from circling)", c.HandBackDelay)
	}
	for _, l := range c.Languages {
		if l == "" {
			return fmt.Errorf("worker.languages: an empty language id")
		}
	}
	return nil
}

func defaultName() string {
	host, _ := os.Hostname()
	if host == "" {
		host = "worker"
	}
	return fmt.Sprintf("%s-%d-%04x", host, os.Getpid(), time.Now().UnixNano()&0xffff)
}
