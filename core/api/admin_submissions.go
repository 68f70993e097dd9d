package api

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"oj/core/job"
	"oj/core/ops"
	"oj/core/store"
	"oj/core/wire"
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
// the outbox (ops.RejudgeSubmission). 409 while it is still queued or running.
func (s *Server) rejudgeSubmission(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	id := r.PathValue("id")
	return act(s, w, r, tok, action[wire.RejudgeResult]{check: submissionIn(r, id), what: "rejudge",
		notFound: "submission " + id + " not found",
		do: func(or ops.Request) (wire.RejudgeResult, error) {
			c, err := s.ops.RejudgeSubmission(r.Context(), or, id)
			return rejudgeWire(or.DryRun, c), err
		}})
}

// submissionIn holds an action to a path {id} that can be a submission's: 404 when not.
func submissionIn(r *http.Request, id string) func() error {
	return func() error {
		infoFrom(r.Context()).submissionID = id
		if !job.IsSubmissionID(id) {
			return errorf(http.StatusNotFound, codeNotFound, "submission %s not found", quoteClip(id, 60))
		}
		return nil
	}
}

// problemIn holds an action to a path {id} that can be a problem's: 404 when not.
func problemIn(id string) func() error {
	return func() error {
		if !problemID.MatchString(id) {
			return errorf(http.StatusNotFound, codeNotFound, "unknown problem %q", id)
		}
		return nil
	}
}

// problemAction reads an action on the problem {id} (verify's): who asks, how, and the id.
func (s *Server) problemAction(w http.ResponseWriter, r *http.Request, tok *store.Token) (ops.Request, string, error) {
	var req wire.ActionRequest
	id := r.PathValue("id")
	or, err := s.readAction(w, r, tok, &req, &req.DryRun, problemIn(id))
	return or, id, err
}

// rejudgeProblem is POST /admin/v1/problems/{id}/rejudge: every judged submission of the
// problem goes to the rejudge lane, in batches (ops.RejudgeProblem).
func (s *Server) rejudgeProblem(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	id := r.PathValue("id")
	return act(s, w, r, tok, action[wire.RejudgeResult]{check: problemIn(id), what: "rejudge",
		notFound: fmt.Sprintf("unknown problem %q", id),
		do: func(or ops.Request) (wire.RejudgeResult, error) {
			c, err := s.ops.RejudgeProblem(r.Context(), or, id)
			return rejudgeWire(or.DryRun, c), err
		}})
}

// rejudgeWire is a rejudge's answer: its counts, as its audit row has them.
func rejudgeWire(dryRun bool, c ops.RejudgeCounts) wire.RejudgeResult {
	return wire.RejudgeResult{DryRun: dryRun, Rejudged: c.Rejudged, WouldRejudge: c.WouldRejudge, Requested: c.Requested}
}

// cancel is POST /admin/v1/submissions/{id}/cancel: a queued or running submission is
// canceled and its attempt bumped, so a late result is fenced off (invariant 4;
// ops.Cancel). 409 when it is already terminal.
func (s *Server) cancel(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	id := r.PathValue("id")
	return act(s, w, r, tok, action[wire.CancelResult]{check: submissionIn(r, id), what: "cancel",
		notFound: "submission " + id + " not found",
		do: func(or ops.Request) (wire.CancelResult, error) {
			c, err := s.ops.Cancel(r.Context(), or, id)
			return wire.CancelResult{DryRun: or.DryRun, Canceled: c.Canceled, WouldCancel: c.WouldCancel}, err
		}})
}

// opsError answers an admin action's error: 404 (with notFound) for what does not exist,
// 409 for a refusal, 503 for the rest.
func opsError(what string, err error, notFound string) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return errorf(http.StatusNotFound, codeNotFound, "%s", notFound)
	case errors.Is(err, store.ErrConflict):
		return errorf(http.StatusConflict, codeConflict, "%s", strings.TrimPrefix(err.Error(), what+": "))
	}
	return unavailable(what, err)
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
	view, err := s.caseViewOf(r.Context(), tok, sub)
	if err != nil {
		return unavailable("read submission", err)
	}
	out := wire.Trace{Submission: wire.TraceSubmission{Submission: toWire(sub, tok, view), OwnerID: sub.OwnerID,
		Lane: string(sub.Lane), Failures: sub.Failures, MaxAttempts: sub.MaxAttempts, LeaseOwner: sub.LeaseOwner,
		LeaseUntil: sub.LeaseUntil, LastError: sub.LastError, TraceID: sub.TraceID, QueuedAt: sub.QueuedAt,
		StartedAt: sub.StartedAt}, Events: make([]wire.TraceEvent, 0, len(hist))}
	for _, h := range hist {
		out.Events = append(out.Events, wire.TraceEvent{At: h.At, Event: string(h.Event), Attempt: h.Attempt,
			Worker: h.Worker, Actor: h.Actor, Detail: h.Detail})
	}
	out.Attempts = attempts(hist)
	if sub.OwnerID != nil {
		// An owner id alone sends the operator to the database: the token's name is what
		// they know the caller by (ojd token list, the submissions list's owner).
		if out.Submission.Owner, err = store.TokenName(r.Context(), s.d.DB, *sub.OwnerID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return unavailable("read owner", err)
		}
	}
	if out.Submission.Waiting, err = s.waitingReason(r.Context(), sub); err != nil {
		return unavailable("read workers", err)
	}
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
		case store.EventClaimed:
			a := &wire.TraceAttempt{Attempt: h.Attempt, Worker: h.Worker, ClaimedAt: &at,
				Reclaimed: strings.HasPrefix(h.Detail, "reclaimed")}
			if prev, ok := byNum[h.Attempt-1]; ok && prev.EndedAt == nil && a.Reclaimed {
				prev.EndedAt, prev.Outcome, prev.Error = &at, "reclaimed", h.Detail
			}
			byNum[h.Attempt] = a
			order = append(order, h.Attempt)
		case store.EventFinished, store.EventRetry, store.EventDead, store.EventGivenBack, store.EventCanceled:
			a, ok := byNum[h.Attempt]
			if !ok && h.Event == store.EventCanceled {
				a, ok = byNum[h.Attempt-1] // cancel bumps the attempt it fences off
			}
			if !ok || a.EndedAt != nil {
				continue
			}
			a.EndedAt, a.Outcome = &at, string(h.Event)
			if h.Event == store.EventFinished {
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
