package api

import (
	"errors"
	"net/http"
	"sort"
	"strings"

	"oj/core/api/wire"
	"oj/core/job"
	"oj/core/store"
)

// adminSubmission reads {id} for an admin action: 404 when it does not exist.
func (s *Server) adminSubmission(r *http.Request) (*store.Submission, error) {
	id := r.PathValue("id")
	infoFrom(r.Context()).submissionID = id
	sub, err := store.GetSubmission(r.Context(), s.d.DB, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errorf(http.StatusNotFound, codeNotFound, "submission %s not found", id)
	}
	if err != nil {
		return nil, unavailable("read submission", err)
	}
	return sub, nil
}

// rejudgeSubmission is POST /admin/v1/submissions/{id}/rejudge: a judged (or dead, or
// canceled) submission goes back to the queue on the low-priority rejudge lane, through
// the outbox. 409 while it is still queued or running.
func (s *Server) rejudgeSubmission(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	var req wire.ActionRequest
	if err := decodeAdmin(w, r, &req); err != nil {
		return err
	}
	req.DryRun = req.DryRun || queryDryRun(r)
	sub, err := s.adminSubmission(r)
	if err != nil {
		return err
	}
	if !job.Requeueable(sub.State) {
		return errorf(http.StatusConflict, codeConflict, "submission %s is %s: only a finished, dead or canceled submission can be rejudged", sub.ID, sub.State)
	}
	n, err := store.Requeue(r.Context(), s.d.DB, []string{sub.ID}, job.LaneRejudge, "rejudged", tok.Name, req.DryRun, s.clock.Now())
	s.addAudit(r, tok, "rejudge", req.DryRun, map[string]any{"submission_id": sub.ID}, countsOrError(map[string]any{"rejudged": n}, err))
	if err != nil {
		return unavailable("rejudge", err)
	}
	writeJSON(w, http.StatusOK, wire.RejudgeResult{DryRun: req.DryRun, Rejudged: n, Requested: 1})
	return nil
}

// rejudgeProblem is POST /admin/v1/problems/{id}/rejudge: every judged submission of the
// problem goes to the rejudge lane, in batches, each its own transaction.
func (s *Server) rejudgeProblem(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	var req wire.ActionRequest
	if err := decodeAdmin(w, r, &req); err != nil {
		return err
	}
	req.DryRun = req.DryRun || queryDryRun(r)
	id := r.PathValue("id")
	ctx := r.Context()
	if !problemID.MatchString(id) {
		return errorf(http.StatusNotFound, codeNotFound, "unknown problem %q", id)
	}
	if _, err := store.LatestProblem(ctx, s.d.DB, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errorf(http.StatusNotFound, codeNotFound, "unknown problem %q", id)
		}
		return unavailable("rejudge", err)
	}
	res := wire.RejudgeResult{DryRun: req.DryRun}
	now := s.clock.Now()
	after := ""
	var failure error
	for {
		ids, err := store.ProblemSubmissions(ctx, s.d.DB, id, after, replayBatch)
		if err != nil {
			failure = err
			break
		}
		if len(ids) == 0 {
			break
		}
		res.Requested += len(ids)
		n, err := store.Requeue(ctx, s.d.DB, ids, job.LaneRejudge, "rejudged", tok.Name, req.DryRun, now)
		if err != nil {
			failure = err
			break
		}
		res.Rejudged += n
		after = ids[len(ids)-1]
		if len(ids) < replayBatch {
			break
		}
	}
	s.addAudit(r, tok, "rejudge_problem", req.DryRun, map[string]any{"problem_id": id},
		countsOrError(map[string]any{"requested": res.Requested, "rejudged": res.Rejudged}, failure))
	if failure != nil {
		return unavailable("rejudge", failure)
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

func countsOrError(c map[string]any, err error) map[string]any {
	if err != nil {
		c["error"] = err.Error()
	}
	return c
}

// cancel is POST /admin/v1/submissions/{id}/cancel: a queued or running submission is
// canceled and its attempt bumped, so a late result of the running attempt is fenced off
// (invariant 4). 409 when it is already terminal.
func (s *Server) cancel(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	var req wire.ActionRequest
	if err := decodeAdmin(w, r, &req); err != nil {
		return err
	}
	req.DryRun = req.DryRun || queryDryRun(r)
	sub, err := s.adminSubmission(r)
	if err != nil {
		return err
	}
	ok, err := store.Cancel(r.Context(), s.d.DB, sub.ID, tok.Name, req.DryRun, s.clock.Now())
	n := 0
	if ok {
		n = 1
	}
	switch {
	case errors.Is(err, store.ErrConflict):
		s.addAudit(r, tok, "cancel", req.DryRun, map[string]any{"submission_id": sub.ID}, map[string]any{"canceled": 0, "refused": err.Error()})
		return errorf(http.StatusConflict, codeConflict, "%s", strings.TrimPrefix(err.Error(), "cancel: "))
	case errors.Is(err, store.ErrNotFound):
		return errorf(http.StatusNotFound, codeNotFound, "submission %s not found", sub.ID)
	}
	s.addAudit(r, tok, "cancel", req.DryRun, map[string]any{"submission_id": sub.ID}, countsOrError(map[string]any{"canceled": n}, err))
	if err != nil {
		return unavailable("cancel", err)
	}
	writeJSON(w, http.StatusOK, wire.CancelResult{DryRun: req.DryRun, Canceled: n})
	return nil
}

// trace is GET /admin/v1/submissions/{id}/trace: the submission, its history and each
// attempt reconstructed from it (who claimed it, when, how it ended), and its dead letter.
func (s *Server) trace(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	sub, err := s.adminSubmission(r)
	if err != nil {
		return err
	}
	hist, err := store.SubmissionHistory(r.Context(), s.d.DB, sub.ID)
	if err != nil {
		return unavailable("history", err)
	}
	out := wire.Trace{Submission: wire.TraceSubmission{Submission: toWire(sub, tok), OwnerID: sub.OwnerID,
		Lane: string(sub.Lane), Failures: sub.Failures, MaxAttempts: sub.MaxAttempts, LeaseOwner: sub.LeaseOwner,
		LeaseUntil: sub.LeaseUntil, LastError: sub.LastError, TraceID: sub.TraceID, QueuedAt: sub.QueuedAt,
		StartedAt: sub.StartedAt}, Events: make([]wire.TraceEvent, 0, len(hist))}
	for _, h := range hist {
		out.Events = append(out.Events, wire.TraceEvent{At: h.At, Event: h.Event, Attempt: h.Attempt,
			Worker: h.Worker, Actor: h.Actor, Detail: h.Detail})
	}
	out.Attempts = attempts(hist)
	dl, err := store.GetDeadLetter(r.Context(), s.d.DB, sub.ID)
	switch {
	case err == nil:
		d := deadLetterWire(*dl)
		out.DeadLetter = &d
	case !errors.Is(err, store.ErrNotFound):
		return unavailable("dead letter", err)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// attempts groups the history by attempt: each claim opens one, and the first ending
// event with its number (finished, retry, dead, given_back) closes it. An attempt a later
// claim took over after its lease expired is closed as "reclaimed".
func attempts(hist []store.History) []wire.TraceAttempt {
	byNum := map[int]*wire.TraceAttempt{}
	var order []int
	for _, h := range hist {
		at := h.At
		switch h.Event {
		case "claimed":
			a := &wire.TraceAttempt{Attempt: h.Attempt, Worker: h.Worker, ClaimedAt: &at,
				Reclaimed: strings.HasPrefix(h.Detail, "reclaimed")}
			if prev, ok := byNum[h.Attempt-1]; ok && prev.EndedAt == nil && a.Reclaimed {
				prev.EndedAt, prev.Outcome, prev.Error = &at, "reclaimed", h.Detail
			}
			byNum[h.Attempt] = a
			order = append(order, h.Attempt)
		case "finished", "retry", "dead", "given_back", "canceled":
			a, ok := byNum[h.Attempt]
			if !ok && h.Event == "canceled" {
				a, ok = byNum[h.Attempt-1] // cancel bumps the attempt it fences off
			}
			if !ok || a.EndedAt != nil {
				continue
			}
			a.EndedAt, a.Outcome = &at, h.Event
			if h.Event == "finished" {
				a.Verdict = h.Detail
			} else {
				a.Error = h.Detail
			}
		}
	}
	sort.Ints(order)
	out := make([]wire.TraceAttempt, 0, len(order))
	for _, n := range order {
		out = append(out, *byNum[n])
	}
	return out
}
