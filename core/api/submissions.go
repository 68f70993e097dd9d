package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"oj/core/job"
	"oj/core/store"
	"oj/core/wire"
)

// submit is POST /api/v1/submissions: admit the caller, read the request, then answer a
// retried Idempotency-Key with its first submission, or store a new one and answer that.
func (s *Server) submit(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	key := r.Header.Get("Idempotency-Key")
	if aerr := checkIdempotencyKey(key); aerr != nil {
		return aerr
	}
	if aerr := s.admit(tok); aerr != nil {
		return aerr
	}
	req, n, aerr := s.readSubmit(r, tok, key)
	if aerr != nil {
		return aerr
	}
	if key != "" {
		// A retry of an earlier submit: answer with the first submission.
		id, hash, err := store.FindByIdempotencyKey(r.Context(), s.d.DB, tok.ID, key)
		switch {
		case err == nil:
			return s.replayed(w, r, tok, id, hash, n, req)
		case !errors.Is(err, store.ErrNotFound):
			return s.submitUnavailable(err)
		}
	}
	if aerr := s.pinProblemVersion(r.Context(), &n, tok); aerr != nil {
		return aerr
	}
	s.liveBounds(&n, tok)
	id, err := store.Submit(r.Context(), s.d.DB, n)
	if lb := (*store.LiveBoundError)(nil); errors.As(err, &lb) {
		return s.liveRefused(lb, tok)
	}
	if err != nil {
		return s.submitFailed(w, r, tok, n, req, err)
	}
	return s.answerNew(w, r, tok, id, req)
}

// admit refuses a submit before its body is read when the caller's or the global token
// bucket is empty, so shedding load costs no decoding. The bounds on the caller's live
// submissions (and the backlog, which refuses only callers with submissions waiting)
// are decided when the submission is stored: see liveBounds.
func (s *Server) admit(tok *store.Token) *apiError {
	if ok, wait, which := s.buckets.take(tok, s.clock.Now()); !ok {
		s.metrics.submits.WithLabelValues("rate_limited").Inc()
		return &apiError{status: http.StatusTooManyRequests, code: codeRateLimited, retryAfter: wait,
			msg: "too many submissions (" + which + " limit); retry after the Retry-After delay"}
	}
	return nil
}

// liveBounds sets n's bounds on its owner's live submissions: at most max_live_per_user
// (max_live_per_admin for admins) queued or running, and while the queue is over its
// backlog threshold, nothing new from an owner who already has a submission waiting —
// the refusals fall on those holding the backlog, never on a user with nothing queued.
func (s *Server) liveBounds(n *store.NewSubmission, tok *store.Token) {
	n.MaxLive = s.lim.MaxLivePerUser
	if tok.Role == roleAdmin {
		n.MaxLive = s.lim.MaxLivePerAdmin
	}
	if tok.MaxLive != nil {
		n.MaxLive = *tok.MaxLive
	}
	n.RefuseIfQueued = s.backlog.over()
}

// liveRefused is the answer of a submit its owner's live submissions refused.
func (s *Server) liveRefused(e *store.LiveBoundError, tok *store.Token) *apiError {
	if e.Backlog {
		s.metrics.submits.WithLabelValues("backlog").Inc()
		return &apiError{status: http.StatusTooManyRequests, code: codeBacklog, retryAfter: 10 * time.Second,
			msg: fmt.Sprintf("the judge is overloaded and %d of your submissions are still waiting to be judged; "+
				"submit again once they are (users with nothing waiting are still accepted)", e.Queued)}
	}
	key := "api.limits.max_live_per_user"
	switch {
	case tok.MaxLive != nil:
		key = "the token's own max_live"
	case tok.Role == roleAdmin:
		key = "api.limits.max_live_per_admin"
	}
	s.metrics.submits.WithLabelValues("live_limit").Inc()
	return &apiError{status: http.StatusTooManyRequests, code: codeTooManyLive, retryAfter: 5 * time.Second,
		msg: fmt.Sprintf("you have %d submissions queued or running, the most a token may have (%d, %s); "+
			"submit again when one is judged", e.Queued+e.Running, e.Limit, key)}
}

// readSubmit decodes the body and checks what decodeSubmit cannot know without the
// server's configuration: the language, and a problem id the schema could hold. The
// submission it returns has no problem version yet (pinProblemVersion sets it).
// The route bounds the body by submitBodyLimit (limitBody).
func (s *Server) readSubmit(r *http.Request, tok *store.Token, key string) (wire.SubmitRequest, store.NewSubmission, *apiError) {
	req, aerr := decodeSubmit(r.Body, s.lim.MaxSourceBytes)
	if aerr != nil {
		s.metrics.submits.WithLabelValues("rejected").Inc()
		return req, store.NewSubmission{}, aerr
	}
	lg, ok := s.d.Languages.Get(req.Language)
	if !ok {
		s.metrics.submits.WithLabelValues("rejected").Inc()
		return req, store.NewSubmission{}, errorf(http.StatusBadRequest, codeUnknownLanguage, "unknown language %q (GET /api/v1/languages lists them)", req.Language)
	}
	if !problemID.MatchString(req.ProblemID) {
		// No problem has such an id (the schema's CHECK): no need to ask PostgreSQL.
		s.metrics.submits.WithLabelValues("rejected").Inc()
		return req, store.NewSubmission{}, errorf(http.StatusNotFound, codeNotFound, "unknown problem %q", req.ProblemID)
	}
	n := store.NewSubmission{OwnerID: &tok.ID, ProblemID: req.ProblemID, Language: lg.ID, Lane: lg.Lane,
		Source: req.Source, MaxAttempts: s.lim.MaxAttempts, IdempotencyKey: key, TraceID: infoFrom(r.Context()).traceID,
		Metadata: req.Metadata}
	return req, n, nil
}

// pinProblemVersion records on n the problem's latest version and its package's sha256,
// which the submission keeps; 404 when PostgreSQL knows no version of the problem, 409
// when its limits are provisional and tok is not an admin's (openForSubmit), 400 before
// that when the version does not accept n's language (languageAllowed).
func (s *Server) pinProblemVersion(ctx context.Context, n *store.NewSubmission, tok *store.Token) *apiError {
	pv, err := store.LatestProblem(ctx, s.d.DB, n.ProblemID)
	if errors.Is(err, store.ErrNotFound) {
		s.metrics.submits.WithLabelValues("rejected").Inc()
		return errorf(http.StatusNotFound, codeNotFound, "unknown problem %q", n.ProblemID)
	}
	if err != nil {
		return s.submitUnavailable(err)
	}
	if aerr := s.languageAllowed(pv, n.Language); aerr != nil {
		return aerr
	}
	open, aerr := s.openForSubmit(ctx, pv, tok)
	if aerr != nil {
		return aerr
	}
	n.ProblemVersion, n.ProblemSHA256 = open.Version, open.SHA256
	return nil
}

// submitFailed answers a submit PostgreSQL did not store. When the cause is a concurrent
// submit with the same Idempotency-Key that committed first, the answer is that one.
func (s *Server) submitFailed(w http.ResponseWriter, r *http.Request, tok *store.Token, n store.NewSubmission,
	req wire.SubmitRequest, err error) error {
	if n.IdempotencyKey != "" && store.IsIdempotencyConflict(err) {
		id, hash, ferr := store.FindByIdempotencyKey(r.Context(), s.d.DB, tok.ID, n.IdempotencyKey)
		if ferr == nil {
			return s.replayed(w, r, tok, id, hash, n, req)
		}
		err = ferr
	}
	return s.submitUnavailable(err)
}

// submitUnavailable counts and answers a submit PostgreSQL could not serve.
func (s *Server) submitUnavailable(err error) *apiError {
	s.metrics.submits.WithLabelValues("unavailable").Inc()
	return unavailable("submit", err)
}

// answerNew answers a newly stored submission: 202 queued, or what answerAfterWait
// says when the request asked to wait for its verdict.
func (s *Server) answerNew(w http.ResponseWriter, r *http.Request, tok *store.Token, id string, req wire.SubmitRequest) error {
	s.metrics.submits.WithLabelValues("accepted").Inc()
	infoFrom(r.Context()).submissionID = id
	if wait := s.waitFor(req); wait > 0 {
		return s.answerAfterWait(w, r, tok, id, wait, false)
	}
	writeJSON(w, http.StatusAccepted, wire.Accepted{ID: id, State: string(job.StateQueued)})
	return nil
}

// replayed answers a submit whose Idempotency-Key was used before: the first submission
// when the body is the same, 422 when it is not. The first submission is returned whole
// (200) when it is already judged, else as accepted (202), after waiting like a new
// submit would.
func (s *Server) replayed(w http.ResponseWriter, r *http.Request, tok *store.Token, id string, hash []byte,
	n store.NewSubmission, req wire.SubmitRequest) error {
	if !bytes.Equal(hash, n.RequestHash()) {
		s.metrics.submits.WithLabelValues("rejected").Inc()
		return errorf(http.StatusUnprocessableEntity, codeIdempotency,
			"Idempotency-Key was already used for a different submission (%s)", id)
	}
	s.metrics.submits.WithLabelValues("replayed").Inc()
	infoFrom(r.Context()).submissionID = id
	w.Header().Set("Idempotent-Replayed", "true")
	return s.answerAfterWait(w, r, tok, id, s.waitFor(req), true)
}

// waitFor is how long a submit waits for its verdict before answering: wait_ms, capped.
func (s *Server) waitFor(req wire.SubmitRequest) time.Duration {
	if req.WaitMS == nil || *req.WaitMS <= 0 {
		return 0
	}
	return min(time.Duration(*req.WaitMS)*time.Millisecond, s.lim.MaxWait)
}

// answerAfterWait waits up to wait for the submission to be judged: 200 with the whole
// submission when it is, else 202 with its current state. alwaysWhole answers a terminal
// submission whole even without waiting (an idempotent replay).
func (s *Server) answerAfterWait(w http.ResponseWriter, r *http.Request, tok *store.Token, id string, wait time.Duration, alwaysWhole bool) error {
	sub, err := s.waitTerminal(r.Context(), id, wait)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errorf(http.StatusNotFound, codeNotFound, "submission %s not found", id)
		}
		if r.Context().Err() != nil {
			return nil // the client left
		}
		return unavailable("read submission", err)
	}
	if sub.State.Terminal() && (wait > 0 || alwaysWhole) {
		view, err := s.caseViewOf(r.Context(), tok, sub)
		if err != nil {
			return unavailable("read submission", err)
		}
		writeJSON(w, http.StatusOK, toWire(sub, tok, view))
		return nil
	}
	writeJSON(w, http.StatusAccepted, wire.Accepted{ID: id, State: string(sub.State)})
	return nil
}

// waitTerminal reads the submission, and while it is not terminal waits up to wait for
// oj_events to announce a terminal state (or a resync), reading PostgreSQL again each
// time; the last read is always PostgreSQL's (invariant 1).
func (s *Server) waitTerminal(ctx context.Context, id string, wait time.Duration) (*store.Submission, error) {
	if wait <= 0 {
		return store.GetSubmission(ctx, s.d.DB, id)
	}
	sub := s.hub.subscribe(id)
	defer s.hub.unsubscribe(sub)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		cur, err := store.GetSubmission(ctx, s.d.DB, id)
		if err != nil || cur.State.Terminal() {
			return cur, err
		}
		for reread := false; !reread; {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-s.closing:
				return store.GetSubmission(ctx, s.d.DB, id)
			case <-timer.C:
				return store.GetSubmission(ctx, s.d.DB, id)
			case <-sub.wake:
				changes, resync := sub.take()
				reread = resync
				for _, c := range changes {
					if job.State(c.state).Terminal() {
						reread = true
					}
				}
			}
		}
	}
}

// getSubmission is GET /api/v1/submissions/{id}.
func (s *Server) getSubmission(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	sub, err := s.visibleSubmission(r, tok)
	if err != nil {
		return err
	}
	view, err := s.caseViewOf(r.Context(), tok, sub)
	if err != nil {
		return unavailable("read submission", err)
	}
	out := toWire(sub, tok, view)
	if out.Waiting, err = s.waitingReason(r.Context(), sub); err != nil {
		return unavailable("read workers", err)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// visibleSubmission reads {id} if tok may see it: 404 for a missing one and for another
// user's alike.
func (s *Server) visibleSubmission(r *http.Request, tok *store.Token) (*store.Submission, error) {
	id := r.PathValue("id")
	infoFrom(r.Context()).submissionID = id
	sub, err := store.GetSubmission(r.Context(), s.d.DB, id)
	// A run is no submission: GET /api/v1/runs/{id} serves it.
	if errors.Is(err, store.ErrNotFound) || (err == nil && (sub.Kind == job.KindRun || !canSee(tok, sub.OwnerID))) {
		return nil, errorf(http.StatusNotFound, codeNotFound, "submission %s not found", id)
	}
	if err != nil {
		return nil, unavailable("read submission", err)
	}
	return sub, nil
}

// purposeQuery reads ?purpose= of a list or the feed: user (the default: a
// verification's submissions count for no user), verify, or all.
func purposeQuery(r *http.Request) (string, *apiError) {
	switch v := r.URL.Query().Get("purpose"); v {
	case "", store.PurposeUser:
		return store.PurposeUser, nil
	case store.PurposeVerify, store.PurposeAll:
		return v, nil
	default:
		return "", errorf(http.StatusBadRequest, codeBadRequest, "purpose: %q (want user, verify or all: "+
			"the submissions of users, of problem verifications, or both)", quoteClip(v, 20))
	}
}
