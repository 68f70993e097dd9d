package api

import (
	"net/http"
	"time"

	"oj/core/job"
	"oj/core/ops"
	"oj/core/store"
	"oj/core/wire"
)

// reclaim is POST /admin/v1/reclaim: idle pending entries are taken over and PostgreSQL
// decides each one's submission (invariant 6; ops.Reclaim).
func (s *Server) reclaim(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	var req wire.ReclaimRequest
	if err := decodeAdmin(w, r, &req); err != nil {
		return err
	}
	p := ops.ReclaimParams{Lane: job.Lane(req.Lane), MinIdle: ops.DefaultMinIdle, Limit: req.Limit}
	if _, err := lanesFrom(req.Lane); err != nil {
		return err
	}
	if req.MinIdleMS != nil {
		if *req.MinIdleMS < 0 {
			return errorf(http.StatusBadRequest, codeBadRequest, "min_idle_ms: must not be negative")
		}
		p.MinIdle = time.Duration(*req.MinIdleMS) * time.Millisecond
	}
	or, err := s.opsRequest(r, tok, req.DryRun)
	if err != nil {
		return err
	}
	c, err := s.ops.Reclaim(r.Context(), or, p)
	if err != nil {
		return unavailable("reclaim", err)
	}
	writeJSON(w, http.StatusOK, wire.ReclaimResult{DryRun: or.DryRun, Examined: c.Examined, Reclaimed: c.Reclaimed,
		WouldReclaim: c.WouldReclaim, StillLeased: c.StillLeased, TerminalAcked: c.TerminalAcked, Missing: c.Missing,
		Dropped: c.Dropped})
	return nil
}

// actionRequest reads an admin action's body ({"dry_run"}) and who asks (opsRequest).
func (s *Server) actionRequest(w http.ResponseWriter, r *http.Request, tok *store.Token) (ops.Request, error) {
	var req wire.ActionRequest
	if err := decodeAdmin(w, r, &req); err != nil {
		return ops.Request{}, err
	}
	return s.opsRequest(r, tok, req.DryRun)
}

// opsRequest is who asks for an admin action: the token's name, dry_run from the body or
// the query (a misspelt query value is a 400), and the request's trace id.
func (s *Server) opsRequest(r *http.Request, tok *store.Token, dryRun bool) (ops.Request, error) {
	q, err := queryDryRun(r)
	if err != nil {
		return ops.Request{}, err
	}
	return ops.Request{Actor: tok.Name, DryRun: dryRun || q, TraceID: infoFrom(r.Context()).traceID}, nil
}
