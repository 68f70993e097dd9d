package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"oj/core/ops"
	"oj/core/store"
	"oj/core/wire"
)

// workerAction is POST /admin/v1/workers/{name}/drain, /disable and /enable: the worker's
// state in PostgreSQL, audited, obeyed by the worker within worker.state_poll (and by
// its claims at once). 404 when no worker has the name, 409 when it is already in the
// state.
func (s *Server) workerAction(state store.WorkerState) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
		var req wire.WorkerActionRequest
		name := r.PathValue("name")
		return act(s, w, r, tok, action[wire.WorkerActionResult]{body: &req, dryRun: &req.DryRun, what: "set worker state",
			notFound: "no worker called " + quoteClip(name, 210) + " (ojctl worker ls lists them)",
			check: func() error {
				if len(req.Reason) > 500 {
					return errorf(http.StatusBadRequest, codeBadRequest, "reason: %d bytes, at most 500", len(req.Reason))
				}
				return nil
			},
			do: func(or ops.Request) (wire.WorkerActionResult, error) {
				c, err := s.ops.SetWorkerState(r.Context(), or, ops.WorkerParams{Name: name, Reason: req.Reason}, state)
				return wire.WorkerActionResult{DryRun: or.DryRun, Name: name, From: c.From, To: string(state),
					Changed: c.Changed, WouldChange: c.WouldChange}, err
			}})
	}
}

// workerInfos reads the workers PostgreSQL knows, with the leases each holds.
func (s *Server) workerInfos(ctx context.Context, leases []store.LeaseSummary) ([]wire.WorkerInfo, error) {
	rows, err := store.ListWorkers(ctx, s.d.DB)
	if err != nil {
		return nil, err
	}
	held := map[string]int{}
	for _, l := range leases {
		held[l.Owner] = l.Count
	}
	now := s.clock.Now()
	out := make([]wire.WorkerInfo, 0, len(rows))
	for _, r := range rows {
		errs := make([]wire.WorkerError, 0, len(r.RecentErrors))
		for _, e := range r.RecentErrors {
			errs = append(errs, wire.WorkerError{At: e.At, SubmissionID: e.SubmissionID, Error: e.Error})
		}
		lanes := r.Lanes
		if lanes == nil {
			lanes = map[string]int{}
		}
		out = append(out, wire.WorkerInfo{Name: r.Name, State: string(r.State), Reason: r.StateReason, StateBy: r.StateBy,
			StateAt: r.StateAt, Lanes: lanes, Languages: r.Languages, StartedAt: r.StartedAt, LastSeen: r.LastSeen,
			StoppedAt: r.StoppedAt, Live: r.StoppedAt == nil && now.Sub(r.LastSeen) < store.WorkerLiveWithin,
			InFlight: held[r.Name], RecentErrors: errs})
	}
	return out, nil
}

// waitingReason is why a queued submission waits for a worker ("" when a live active
// worker runs its language, or it is not queued).
func (s *Server) waitingReason(ctx context.Context, sub *store.Submission) (string, error) {
	if sub.State != "queued" {
		return "", nil
	}
	c, err := store.LiveCapacity(ctx, s.d.DB, store.WorkerLiveWithin)
	if err != nil {
		return "", err
	}
	return c.Waiting(sub.Lane, sub.Language), nil
}

// noWorker lists the outbox's job rows, per lane and language, that no live active
// worker runs: the overview's waiting_for_worker.
func (s *Server) noWorker(ctx context.Context) ([]wire.LanguageWaiting, error) {
	qs, err := store.LanguageQueues(ctx, s.d.DB)
	if err != nil {
		return nil, err
	}
	c, err := store.LiveCapacity(ctx, s.d.DB, store.WorkerLiveWithin)
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	out := []wire.LanguageWaiting{}
	for _, q := range qs {
		if q.Language == "" {
			continue
		}
		if reason := c.Waiting(q.Lane, q.Language); reason != "" {
			oldest := q.Oldest
			out = append(out, wire.LanguageWaiting{Lane: string(q.Lane), Language: q.Language, Waiting: q.Waiting,
				OldestWaitMS: ageMS(now, &oldest), Reason: reason})
		}
	}
	return out, nil
}

// The states the worker routes set.
const (
	workerDrain   = store.WorkerDraining
	workerDisable = store.WorkerDisabled
	workerEnable  = store.WorkerActive
)

// languageWorkers is the overview's languages: each configured language with its live
// workers by state, and the problem when none of them claims (the last worker of a
// language quarantined, disabled, drained or gone). A worker that announced no
// languages runs them all.
func (s *Server) languageWorkers(ctx context.Context) ([]wire.LanguageWorkers, error) {
	live, err := store.LiveLanguageWorkers(ctx, s.d.DB)
	if err != nil {
		return nil, err
	}
	out := []wire.LanguageWorkers{}
	if s.d.Languages == nil {
		return out, nil
	}
	anyLang := live[""]
	for _, l := range s.d.Languages.All() {
		lw := live[l.ID]
		n := func(st store.WorkerState) int { return lw.States[st] + anyLang.States[st] }
		e := wire.LanguageWorkers{Language: l.ID, Live: lw.Live() + anyLang.Live(), Active: n(store.WorkerActive),
			Quarantined: n(store.WorkerQuarantined), Disabled: n(store.WorkerDisabled), Draining: n(store.WorkerDraining)}
		switch {
		case e.Active > 0:
		case e.Live == 0:
			e.Problem = fmt.Sprintf("no live worker runs %s", l.ID)
		case e.Live == 1 && e.Quarantined == 1:
			e.Problem = fmt.Sprintf("its only live worker, %s, is quarantined", names(lw, anyLang, store.WorkerQuarantined))
		default:
			var why []string
			for _, st := range []store.WorkerState{store.WorkerQuarantined, store.WorkerDisabled, store.WorkerDraining} {
				if e := names(lw, anyLang, st); e != "" {
					why = append(why, string(st)+": "+e)
				}
			}
			e.Problem = fmt.Sprintf("no live worker that runs %s is active (%s)", l.ID, strings.Join(why, "; "))
		}
		out = append(out, e)
	}
	return out, nil
}

// names lists the workers of a and b in state st, comma-separated.
func names(a, b store.LanguageWorkers, st store.WorkerState) string {
	return strings.Join(append(append([]string(nil), a.Names[st]...), b.Names[st]...), ", ")
}
