package api

import (
	"net/http"

	"oj/core/job"
	"oj/core/ops"
	"oj/core/store"
	"oj/core/wire"
)

// trim is POST /admin/v1/trim: strategy "safe" (XTRIM MINID at the oldest entry still
// pending or undelivered, invariant 9) or "maxlen", asked for explicitly (ops.Trim).
func (s *Server) trim(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	var (
		req wire.TrimRequest
		p   ops.TrimParams
	)
	return act(s, w, r, tok, action[wire.TrimResult]{body: &req, dryRun: &req.DryRun, what: "trim",
		check: func() error {
			if _, err := lanesFrom(req.Lane); err != nil {
				return err
			}
			p = ops.TrimParams{Lane: job.Lane(req.Lane), Strategy: ops.TrimStrategy(req.Strategy), MaxLen: req.MaxLen}
			if err := p.Validate(); err != nil {
				return errorf(http.StatusBadRequest, codeBadRequest, "%v", err)
			}
			return nil
		},
		do: func(or ops.Request) (wire.TrimResult, error) {
			c, err := s.ops.Trim(r.Context(), or, p)
			out := wire.TrimResult{DryRun: or.DryRun, Strategy: req.Strategy, LengthBefore: c.LengthBefore,
				LengthAfter: c.LengthAfter, Removed: c.Removed, WouldRemove: c.WouldRemove, Lanes: make([]wire.LaneTrim, 0, len(c.Lanes))}
			for _, l := range c.Lanes {
				out.Lanes = append(out.Lanes, wire.LaneTrim{Lane: string(l.Lane), LengthBefore: l.LengthBefore,
					LengthAfter: l.LengthAfter, MinID: l.MinID})
			}
			return out, err
		}})
}
