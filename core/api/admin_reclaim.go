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
	var (
		req wire.ReclaimRequest
		p   ops.ReclaimParams
	)
	return act(s, w, r, tok, action[wire.ReclaimResult]{body: &req, dryRun: &req.DryRun, what: "reclaim",
		check: func() error {
			p = ops.ReclaimParams{Lane: job.Lane(req.Lane), MinIdle: ops.DefaultMinIdle, Limit: req.Limit}
			if _, err := lanesFrom(req.Lane); err != nil {
				return err
			}
			if req.MinIdleMS != nil {
				if *req.MinIdleMS < 0 {
					return errorf(http.StatusBadRequest, codeBadRequest, "min_idle_ms: must not be negative")
				}
				p.MinIdle = time.Duration(*req.MinIdleMS) * time.Millisecond
			}
			return nil
		},
		do: func(or ops.Request) (wire.ReclaimResult, error) {
			c, err := s.ops.Reclaim(r.Context(), or, p)
			return wire.ReclaimResult{DryRun: or.DryRun, Examined: c.Examined, Reclaimed: c.Reclaimed,
				WouldReclaim: c.WouldReclaim, StillLeased: c.StillLeased, TerminalAcked: c.TerminalAcked, Missing: c.Missing,
				Dropped: c.Dropped}, err
		}})
}
