package api

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"oj/core/render"
	"strings"
	"time"

	"oj/core/job"
	"oj/core/store"
	"oj/core/wire"
)

// Runs: the Run button. A run is a program on the caller's own inputs, with no problem
// and no verdict, stored and judged along the submissions' durable path on lane run
// (store.SubmitRun). It has its own token bucket (run_rate, run_burst), a bound on each
// token's runs queued or running (run_max_live_per_user) and a cap on the runs waiting
// (run_max_queued, which refuses only callers with a run waiting), so runs and submits
// never spend each other's budget and one token never takes the whole run lane.

const keyMaxStdin = "runs.max_stdin_bytes"

// runBodyLimit bounds a run's body: a submit's, plus the inputs (JSON may escape each
// byte into up to six).
func runBodyLimit(maxSource, maxStdin int) int64 {
	return submitBodyLimit(maxSource) + int64(maxStdin)*6
}

// decodeRun reads and checks the shape of a run body, as decodeSubmit does a submit's:
// one JSON object of known fields, valid UTF-8, then the fields' own bounds.
func decodeRun(r io.Reader, maxSource int, runs job.RunsConfig) (wire.RunRequest, *apiError) {
	var req wire.RunRequest
	body, err := io.ReadAll(r)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return req, errorf(http.StatusRequestEntityTooLarge, codeTooLarge,
				"request body is over its limit: source at most %d bytes (%s), inputs at most %d bytes in all (%s)",
				maxSource, keyMaxSource, runs.MaxStdinBytes, keyMaxStdin)
		}
		return req, errorf(http.StatusBadRequest, codeBadRequest, "read body: %v", err)
	}
	if aerr := decodeStrict(body, &req); aerr != nil {
		return req, aerr
	}
	return req, checkRunFields(req, maxSource, runs)
}

// checkRunFields refuses a run body that says nothing to run, more than the bounds
// allow, or text PostgreSQL cannot store (NUL).
func checkRunFields(req wire.RunRequest, maxSource int, runs job.RunsConfig) *apiError {
	for _, f := range []struct{ name, value string }{{"language", req.Language}, {"source", req.Source}} {
		if i := strings.IndexByte(f.value, 0); i >= 0 {
			return errorf(http.StatusBadRequest, codeBadRequest, "%s: holds a NUL character (U+0000) at byte %d; text may not contain NUL", f.name, i)
		}
	}
	switch {
	case req.Language == "":
		return errorf(http.StatusBadRequest, codeUnknownLanguage, "language: empty")
	case req.Source == "":
		return errorf(http.StatusBadRequest, codeEmptySource, "source: empty")
	case len(req.Source) > maxSource:
		return errorf(http.StatusRequestEntityTooLarge, codeTooLarge, "source is %d bytes, over the limit of %d bytes (%s)",
			len(req.Source), maxSource, keyMaxSource)
	case req.Stdin != nil && req.Stdins != nil:
		return errorf(http.StatusBadRequest, codeBadRequest, "stdin and stdins: give one input as stdin or several as stdins, not both")
	case len(req.Stdins) > job.MaxRunInputs:
		return errorf(http.StatusBadRequest, codeBadRequest, "stdins: %d inputs, at most %d", len(req.Stdins), job.MaxRunInputs)
	case req.Stdins != nil && len(req.Stdins) == 0:
		return errorf(http.StatusBadRequest, codeBadRequest, "stdins: empty; give at least one input (an empty string is an empty input), or leave it out")
	case req.WaitMS != nil && *req.WaitMS < 0:
		return errorf(http.StatusBadRequest, codeBadRequest, "wait_ms: must not be negative")
	}
	if l := req.Limits; l != nil {
		switch {
		case l.TimeMS < 0:
			return errorf(http.StatusBadRequest, codeBadRequest, "limits.time_ms: must not be negative")
		case l.MemoryMB < 0:
			return errorf(http.StatusBadRequest, codeBadRequest, "limits.memory_mb: must not be negative")
		case l.OutputBytes != 0:
			return errorf(http.StatusBadRequest, codeBadRequest, "limits.output_bytes: set by the server (%d bytes, runs.output_bytes), not by a run", runs.OutputBytes)
		}
	}
	total := 0
	for i, in := range runInputs(req) {
		if j := strings.IndexByte(in, 0); j >= 0 {
			return errorf(http.StatusBadRequest, codeBadRequest, "input %d: holds a NUL character (U+0000) at byte %d; inputs are text without NUL", i+1, j)
		}
		total += len(in)
	}
	if total > runs.MaxStdinBytes {
		return errorf(http.StatusRequestEntityTooLarge, codeTooLarge, "inputs are %d bytes in all, over the limit of %d bytes (%s)",
			total, runs.MaxStdinBytes, keyMaxStdin)
	}
	return checkMetadata(req.Metadata)
}

// runInputs are the request's inputs: stdins, or stdin alone, or one empty input.
func runInputs(req wire.RunRequest) []string {
	switch {
	case req.Stdins != nil:
		return req.Stdins
	case req.Stdin != nil:
		return []string{*req.Stdin}
	}
	return []string{""}
}

// run is POST /api/v1/runs: admit the caller (its runs' bucket), read the request,
// clamp its limits, store it with its outbox row, and answer 202 or, within wait_ms,
// 200 with the finished run.
func (s *Server) run(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	if ok, wait, _ := s.runBuckets.take(tok, s.clock.Now()); !ok {
		s.metrics.runs.WithLabelValues("rate_limited").Inc()
		return &apiError{status: http.StatusTooManyRequests, code: codeRateLimited, retryAfter: wait,
			msg: "too many runs (api.limits.run_rate); retry after the Retry-After delay"}
	}
	req, aerr := decodeRun(r.Body, s.lim.MaxSourceBytes, s.cfg.Runs)
	if aerr != nil {
		s.metrics.runs.WithLabelValues("rejected").Inc()
		return aerr
	}
	lg, ok := s.d.Languages.Get(req.Language)
	if !ok {
		s.metrics.runs.WithLabelValues("rejected").Inc()
		return errorf(http.StatusBadRequest, codeUnknownLanguage, "unknown language %q (GET /api/v1/languages lists them)", req.Language)
	}
	var timeMS, memMB int
	if req.Limits != nil {
		timeMS, memMB = req.Limits.TimeMS, req.Limits.MemoryMB
	}
	spec, _ := s.cfg.Runs.Spec(runInputs(req), timeMS, memMB)
	id, err := store.SubmitRun(r.Context(), s.d.DB, store.NewRun{OwnerID: &tok.ID, Language: lg.ID, Source: req.Source,
		Spec: spec, MaxAttempts: s.lim.MaxAttempts, TraceID: infoFrom(r.Context()).traceID, Metadata: req.Metadata,
		MaxQueued: s.lim.RunMaxQueued, MaxLive: s.runMaxLive(tok)})
	if be := (*store.RunsBacklogError)(nil); errors.As(err, &be) {
		s.metrics.runs.WithLabelValues("backlog").Inc()
		return &apiError{status: http.StatusTooManyRequests, code: codeBacklog, retryAfter: 5 * time.Second,
			msg: fmt.Sprintf("%d runs are waiting for a worker, the most there may be (api.limits.run_max_queued), and %d of them are yours; "+
				"run again once yours has run (callers with no run waiting are still accepted)", be.Queued, be.Mine)}
	}
	if le := (*store.RunsLiveError)(nil); errors.As(err, &le) {
		s.metrics.runs.WithLabelValues("live_limit").Inc()
		key := "api.limits.run_max_live_per_user"
		if tok.RunMaxLive != nil {
			key = "the token's own run_max_live"
		}
		return &apiError{status: http.StatusTooManyRequests, code: codeTooManyLive, retryAfter: 2 * time.Second,
			msg: fmt.Sprintf("you have %d runs queued or running, the most a token may have (%d, %s); run again when one has finished",
				le.Queued+le.Running, le.Limit, key)}
	}
	if err != nil {
		s.metrics.runs.WithLabelValues("unavailable").Inc()
		return unavailable("run", err)
	}
	s.metrics.runs.WithLabelValues("accepted").Inc()
	infoFrom(r.Context()).submissionID = id
	state := job.StateQueued
	if req.WaitMS != nil && *req.WaitMS > 0 {
		wait := min(time.Duration(*req.WaitMS)*time.Millisecond, s.lim.MaxWait)
		run, err := s.waitTerminal(r.Context(), id, wait)
		switch {
		case err != nil && r.Context().Err() != nil:
			return nil // the client left
		case err != nil:
			return unavailable("read run", err)
		case run.State.Terminal():
			writeJSON(w, http.StatusOK, runToWire(run, tok))
			return nil
		}
		state = run.State
	}
	writeJSON(w, http.StatusAccepted, wire.RunAccepted{ID: id, State: string(state),
		Limits: runLimits(spec), Clamped: nonNilStrings(spec.Clamped)})
	return nil
}

// runMaxLive is tok's bound on its runs queued or running: its own, or the configured
// one.
func (s *Server) runMaxLive(tok *store.Token) int {
	if tok.RunMaxLive != nil {
		return *tok.RunMaxLive
	}
	return s.lim.RunMaxLivePerUser
}

// getRun is GET /api/v1/runs/{id}: the run, to its owner and to admins; 404 to anybody
// else, as for an id that is no run's.
func (s *Server) getRun(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	id := r.PathValue("id")
	infoFrom(r.Context()).submissionID = id
	run, err := store.GetRun(r.Context(), s.d.DB, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && !canSeeRun(tok, run.OwnerID)) {
		return errorf(http.StatusNotFound, codeNotFound, "run %s not found", id)
	}
	if err != nil {
		return unavailable("read run", err)
	}
	writeJSON(w, http.StatusOK, runToWire(run, tok))
	return nil
}

// canSeeRun reports whether tok may read a run owned by ownerID: its owner and admins.
// A reader token (a site's backend following results) has no business with scratch runs.
func canSeeRun(tok *store.Token, ownerID *int64) bool {
	return tok.Role == roleAdmin || (ownerID != nil && *ownerID == tok.ID)
}

// runToWire is a run as the API shows it to tok's holder.
func runToWire(s *store.Submission, tok *store.Token) wire.Run {
	return render.Run(s, tok != nil && tok.Role == roleAdmin)
}

func runLimits(s job.RunSpec) wire.RunLimits { return render.RunLimits(s) }
