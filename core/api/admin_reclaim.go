package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	"oj/core/api/wire"
	"oj/core/job"
	"oj/core/store"
	"oj/core/stream"
)

// adminConsumer is the consumer name reclaim takes idle entries over with.
const adminConsumer = "oj-admin"

// reclaim is POST /admin/v1/reclaim: idle pending entries are taken over with XAUTOCLAIM
// (listed with XPENDING for a dry run), and PostgreSQL decides each one's submission
// (invariant 6): a live lease is left alone (still_leased); a terminal submission's entry
// is acknowledged (terminal_acked); a submission that does not exist, or an entry gone
// from the stream, is missing (a gone entry's submission is re-driven); an expired lease
// is ended through the store (a retry through the outbox, or a dead letter past the
// bound) and a queued submission is re-driven through the outbox — both reclaimed, and
// the old entry acknowledged only after that commit. Nothing is ever XADDed here.
func (s *Server) reclaim(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	var req wire.ReclaimRequest
	if err := decodeAdmin(w, r, &req); err != nil {
		return err
	}
	req.DryRun = req.DryRun || queryDryRun(r)
	lanes, err := lanesFrom(req.Lane)
	if err != nil {
		return err
	}
	minIdle := 60 * time.Second
	if req.MinIdleMS != nil {
		if *req.MinIdleMS < 0 {
			return errorf(http.StatusBadRequest, codeBadRequest, "min_idle_ms: must not be negative")
		}
		minIdle = time.Duration(*req.MinIdleMS) * time.Millisecond
	}
	limit := req.Limit
	if limit <= 0 {
		limit = 1000
	}
	limit = min(limit, 100_000)
	res := wire.ReclaimResult{DryRun: req.DryRun}
	for _, lane := range lanes {
		rc := reclaimer{s: s, lane: lane, actor: tok.Name, dryRun: req.DryRun, res: &res}
		if err := rc.run(r.Context(), minIdle, limit-res.Examined); err != nil {
			s.addAudit(r, tok, "reclaim", req.DryRun, reclaimParams(req, minIdle), reclaimCounts(res, err))
			return unavailable("reclaim", err)
		}
		if res.Examined >= limit {
			break
		}
	}
	s.addAudit(r, tok, "reclaim", req.DryRun, reclaimParams(req, minIdle), reclaimCounts(res, nil))
	writeJSON(w, http.StatusOK, res)
	return nil
}

func reclaimParams(req wire.ReclaimRequest, minIdle time.Duration) map[string]any {
	return map[string]any{"lane": req.Lane, "min_idle_ms": minIdle.Milliseconds(), "limit": req.Limit}
}

func reclaimCounts(res wire.ReclaimResult, err error) map[string]any {
	m := map[string]any{"examined": res.Examined, "reclaimed": res.Reclaimed, "still_leased": res.StillLeased,
		"terminal_acked": res.TerminalAcked, "missing": res.Missing}
	if err != nil {
		m["error"] = err.Error()
	}
	return m
}

type reclaimer struct {
	s      *Server
	lane   job.Lane
	actor  string
	dryRun bool
	res    *wire.ReclaimResult
}

const reclaimBatch = 100

func (rc *reclaimer) run(ctx context.Context, minIdle time.Duration, budget int) error {
	st := rc.s.d.Streams
	if rc.dryRun {
		start := "-"
		for budget > 0 {
			ps, err := st.Pending(ctx, rc.lane, minIdle, start, min(reclaimBatch, budget))
			if err != nil {
				return err
			}
			var entries []stream.Entry
			for _, p := range ps {
				if p.Deleted {
					rc.res.Examined++
					rc.res.Missing++
					continue
				}
				entries = append(entries, stream.Entry{ID: p.ID, SubmissionID: p.SubmissionID})
			}
			if err := rc.decide(ctx, entries); err != nil {
				return err
			}
			budget -= len(ps)
			if len(ps) < reclaimBatch {
				return nil
			}
			start = "(" + ps[len(ps)-1].ID
		}
		return nil
	}
	cursor := "0-0"
	for budget > 0 {
		next, claimed, deleted, err := st.AutoClaim(ctx, rc.lane, adminConsumer, minIdle, cursor, min(reclaimBatch, budget))
		if err != nil {
			if stream.IsNoGroup(err) {
				return nil
			}
			return err
		}
		if len(deleted) > 0 {
			// Redis dropped these from the pending list itself; their submissions need a
			// new entry if they are still live.
			rc.res.Examined += len(deleted)
			rc.res.Missing += len(deleted)
			ids, err := store.SubmissionsForEntries(ctx, rc.s.d.DB, rc.lane, deleted)
			if err != nil {
				return err
			}
			if len(ids) > 0 {
				if _, err := store.Redrive(ctx, rc.s.d.DB, ids, "stream entry deleted while pending (reclaim by "+rc.actor+")", rc.s.clock.Now()); err != nil {
					return err
				}
			}
		}
		if err := rc.decide(ctx, claimed); err != nil {
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

// decide asks PostgreSQL about each entry's submission and acts on the answer.
func (rc *reclaimer) decide(ctx context.Context, entries []stream.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	bySub := map[string][]string{}
	var ids []string
	for _, e := range entries {
		if _, ok := bySub[e.SubmissionID]; !ok {
			ids = append(ids, e.SubmissionID)
		}
		bySub[e.SubmissionID] = append(bySub[e.SubmissionID], e.ID)
	}
	now := rc.s.clock.Now()
	states, err := store.LeaseStates(ctx, rc.s.d.DB, ids, now)
	if err != nil {
		return err
	}
	var ack []string
	for _, id := range ids {
		entryIDs := bySub[id]
		n := len(entryIDs)
		rc.res.Examined += n
		ls, found := states[id]
		switch {
		case !found:
			rc.res.Missing += n
			ack = append(ack, entryIDs...)
		case ls.State.Terminal():
			rc.res.TerminalAcked += n
			ack = append(ack, entryIDs...)
		case ls.State == job.StateRunning && ls.LeaseLive:
			rc.res.StillLeased += n
		case rc.dryRun:
			rc.res.Reclaimed += n
		case ls.State == job.StateRunning:
			_, err := store.EndAttempt(ctx, rc.s.d.DB, "", store.Lease{ID: id, Attempt: ls.Attempt},
				store.Ending{Cause: "reclaimed by " + rc.actor + ": lease of " + ls.Owner + " expired",
					CountsAsFailure: true, LeaseExpired: true}, now)
			switch {
			case err == nil:
				rc.res.Reclaimed += n
				ack = append(ack, entryIDs...)
			case errors.Is(err, store.ErrAlreadyTerminal):
				rc.res.TerminalAcked += n
				ack = append(ack, entryIDs...)
			case errors.Is(err, store.ErrNotFound):
				rc.res.Missing += n
				ack = append(ack, entryIDs...)
			case store.Reason(err) != "":
				rc.res.StillLeased += n // it moved on under us (a worker claimed it)
			default:
				return err
			}
		default: // queued: a worker took the entry and vanished before claiming
			if _, err := store.Redrive(ctx, rc.s.d.DB, []string{id}, "reclaimed by "+rc.actor, now); err != nil {
				return err
			}
			rc.res.Reclaimed += n
			ack = append(ack, entryIDs...)
		}
	}
	if rc.dryRun || len(ack) == 0 {
		return nil
	}
	return rc.s.d.Streams.Ack(ctx, rc.lane, ack...)
}
