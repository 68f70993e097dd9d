package ops

import (
	"context"
	"errors"
	"time"

	"oj/core/job"
	"oj/core/store"
	"oj/core/stream"
)

// Consumer is the consumer name reclaim takes idle entries over with.
const Consumer = "oj-admin"

// Reclaim's defaults and bounds.
const (
	DefaultMinIdle      = 60 * time.Second
	DefaultReclaimLimit = 1000
	MaxReclaimLimit     = 100_000
	reclaimPage         = 100
)

// ReclaimParams says which pending entries to reclaim.
type ReclaimParams struct {
	// Lane is the lane to reclaim; empty: every lane.
	Lane job.Lane `json:"lane"`
	// MinIdle is how long an entry must have been idle.
	MinIdle time.Duration `json:"-"`
	// Limit bounds the entries examined (0: DefaultReclaimLimit; at most MaxReclaimLimit).
	Limit int `json:"limit"`
}

// ReclaimCounts counts what reclaim did (or would do) with each idle pending entry: in a
// dry run Reclaimed is 0 and WouldReclaim says how many would be; the other counts
// classify the entries examined in both (a dry run acknowledges and drops nothing).
type ReclaimCounts struct {
	Examined      int `json:"examined"`
	Reclaimed     int `json:"reclaimed"`
	WouldReclaim  int `json:"would_reclaim"`
	StillLeased   int `json:"still_leased"`
	TerminalAcked int `json:"terminal_acked"`
	Missing       int `json:"missing"`
	// Dropped are malformed entries (no usable submission id), acked and deleted as the
	// workers do, never handed to PostgreSQL.
	Dropped int `json:"dropped"`
}

// Reclaim takes over idle pending entries with XAUTOCLAIM (lists them with XPENDING for
// a dry run) and lets PostgreSQL decide each one's submission (invariant 6): a live lease
// is left alone (still leased); a terminal submission's entry is acked; a submission that
// does not exist, or an entry gone from the stream, is missing (a gone entry's submission
// is re-driven); an expired lease is ended through the store (a retry through the outbox,
// or a dead letter past the bound) and a queued submission is re-driven through the
// outbox — both reclaimed, the old entry acked only after that commit. A malformed entry
// is dropped. Nothing is ever XADDed here.
func (o *Ops) Reclaim(ctx context.Context, req Request, p ReclaimParams) (ReclaimCounts, error) {
	if p.Limit <= 0 {
		p.Limit = DefaultReclaimLimit
	}
	p.Limit = min(p.Limit, MaxReclaimLimit)
	lanes := job.Lanes
	if p.Lane != "" {
		lanes = []job.Lane{p.Lane}
	}
	params := struct {
		ReclaimParams
		MinIdleMS int64 `json:"min_idle_ms"`
	}{p, p.MinIdle.Milliseconds()}
	return audited(ctx, o, req, ActionReclaim, params, false, func(ctx context.Context, _ store.DB) (ReclaimCounts, error) {
		var c ReclaimCounts
		for _, lane := range lanes {
			rc := reclaimer{o: o, lane: lane, req: req, c: &c}
			if err := rc.run(ctx, p.MinIdle, p.Limit-c.Examined); err != nil {
				return c, err
			}
			if c.Examined >= p.Limit {
				break
			}
		}
		return c, nil
	})
}

// reclaimer reclaims one lane.
type reclaimer struct {
	o    *Ops
	lane job.Lane
	req  Request
	c    *ReclaimCounts
}

func (rc *reclaimer) run(ctx context.Context, minIdle time.Duration, budget int) error {
	if rc.req.DryRun {
		return rc.dryRun(ctx, minIdle, budget)
	}
	st := rc.o.streams
	cursor := "0-0"
	for budget > 0 {
		next, claimed, deleted, err := st.AutoClaim(ctx, rc.lane, Consumer, minIdle, cursor, min(reclaimPage, budget))
		if err != nil {
			if stream.IsNoGroup(err) {
				return nil
			}
			return err
		}
		if err := rc.gone(ctx, deleted); err != nil {
			return err
		}
		if err := rc.decide(ctx, stream.GroupBySubmission(claimed)); err != nil {
			return err
		}
		budget -= len(claimed) + len(deleted)
		if next == "0-0" || next == "" {
			return nil
		}
		cursor = next
	}
	return nil
}

// dryRun walks the pending list with XPENDING, which takes nothing over.
func (rc *reclaimer) dryRun(ctx context.Context, minIdle time.Duration, budget int) error {
	start := "-"
	for budget > 0 {
		ps, err := rc.o.streams.Pending(ctx, rc.lane, minIdle, start, min(reclaimPage, budget))
		if err != nil {
			return err
		}
		var entries []stream.Entry
		for _, p := range ps {
			if p.Deleted {
				rc.c.Examined++
				rc.c.Missing++
				continue
			}
			entries = append(entries, stream.Entry{ID: p.ID, SubmissionID: p.SubmissionID, Malformed: p.Malformed})
		}
		if err := rc.decide(ctx, stream.GroupBySubmission(entries)); err != nil {
			return err
		}
		budget -= len(ps)
		if len(ps) < reclaimPage {
			return nil
		}
		start = "(" + ps[len(ps)-1].ID
	}
	return nil
}

// gone handles the entries Redis dropped from the pending list itself: their submissions
// need a new entry if they are still live.
func (rc *reclaimer) gone(ctx context.Context, deleted []string) error {
	if len(deleted) == 0 {
		return nil
	}
	rc.c.Examined += len(deleted)
	rc.c.Missing += len(deleted)
	ids, err := store.SubmissionsForEntries(ctx, rc.o.db, rc.lane, deleted)
	if err != nil || len(ids) == 0 {
		return err
	}
	_, err = store.Redrive(ctx, rc.o.db, ids, "stream entry deleted while pending (reclaim by "+rc.req.Actor+")", rc.o.clock.Now())
	return err
}

// decide drops the malformed entries, asks PostgreSQL about each submission and acts on
// the answer.
func (rc *reclaimer) decide(ctx context.Context, g stream.Grouped) error {
	if err := rc.drop(ctx, g.Malformed); err != nil {
		return err
	}
	if len(g.IDs) == 0 {
		return nil
	}
	now := rc.o.clock.Now()
	states, err := store.LeaseStates(ctx, rc.o.db, g.IDs, now)
	if err != nil {
		return err
	}
	var ack []string
	for _, id := range g.IDs {
		entryIDs := g.Entries[id]
		n := len(entryIDs)
		rc.c.Examined += n
		ls, found := states[id]
		switch {
		case !found:
			rc.c.Missing += n
			ack = append(ack, entryIDs...)
		case ls.State.Terminal():
			rc.c.TerminalAcked += n
			ack = append(ack, entryIDs...)
		case ls.State == job.StateRunning && ls.LeaseLive:
			rc.c.StillLeased += n
		case rc.req.DryRun:
			rc.c.WouldReclaim += n
		case ls.State == job.StateRunning:
			decided, err := rc.endExpired(ctx, ls, n, now)
			if err != nil {
				return err
			}
			if decided {
				ack = append(ack, entryIDs...)
			}
		default: // queued: a worker took the entry and vanished before claiming
			if _, err := store.Redrive(ctx, rc.o.db, []string{id}, "reclaimed by "+rc.req.Actor, now); err != nil {
				return err
			}
			rc.c.Reclaimed += n
			ack = append(ack, entryIDs...)
		}
	}
	if rc.req.DryRun {
		return nil
	}
	return rc.o.streams.Ack(ctx, rc.lane, ack...)
}

// endExpired ends the attempt whose lease expired, counts its n entries and says whether
// PostgreSQL decided them (so they may be acked).
func (rc *reclaimer) endExpired(ctx context.Context, ls store.LeaseState, n int, now time.Time) (bool, error) {
	_, err := store.EndAttempt(ctx, rc.o.db, "", store.Lease{ID: ls.ID, Attempt: ls.Attempt},
		store.Ending{Cause: "reclaimed by " + rc.req.Actor + ": lease of " + ls.Owner + " expired",
			CountsAsFailure: true, LeaseExpired: true}, now)
	switch {
	case err == nil:
		rc.c.Reclaimed += n
	case errors.Is(err, store.ErrAlreadyTerminal):
		rc.c.TerminalAcked += n
	case errors.Is(err, store.ErrNotFound):
		rc.c.Missing += n
	case store.Reason(err) != "":
		rc.c.StillLeased += n // it moved on under us (a worker claimed it)
		return false, nil
	default:
		return false, err
	}
	return true, nil
}

// drop acks and deletes malformed entries (a dry run only counts them), as the workers
// do: no submission can be read from them, and PostgreSQL must never see them.
func (rc *reclaimer) drop(ctx context.Context, entries []stream.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	rc.c.Examined += len(entries)
	rc.c.Dropped += len(entries)
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
		rc.o.log.Warn("reclaim: dropping a malformed stream entry", "lane", rc.lane, "entry", e.ID,
			"reason", e.Malformed, "dry_run", rc.req.DryRun)
	}
	if rc.req.DryRun {
		return nil
	}
	return rc.o.streams.Drop(ctx, rc.lane, ids...)
}
