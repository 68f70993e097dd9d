package api

import (
	"net/http"

	"oj/core/api/wire"
	"oj/core/store"
	"oj/core/stream"
)

// trim is POST /admin/v1/trim: strategy "safe" (XTRIM MINID at the oldest entry still
// pending or undelivered, invariant 9) or "maxlen" (keep the newest maxlen entries, which
// may drop pending ones — the reconciler re-drives their submissions; it must be asked
// for explicitly, with maxlen).
func (s *Server) trim(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	var req wire.TrimRequest
	if err := decodeAdmin(w, r, &req); err != nil {
		return err
	}
	req.DryRun = req.DryRun || queryDryRun(r)
	lanes, err := lanesFrom(req.Lane)
	if err != nil {
		return err
	}
	switch req.Strategy {
	case "safe":
		if req.MaxLen != nil {
			return errorf(http.StatusBadRequest, codeBadRequest, `maxlen: only with strategy "maxlen"`)
		}
	case "maxlen":
		if req.MaxLen == nil || *req.MaxLen < 0 {
			return errorf(http.StatusBadRequest, codeBadRequest, `strategy "maxlen" needs an explicit maxlen >= 0`)
		}
	default:
		return errorf(http.StatusBadRequest, codeBadRequest, `strategy: %q (want "safe" or "maxlen")`, req.Strategy)
	}
	ctx := r.Context()
	out := wire.TrimResult{DryRun: req.DryRun, Strategy: req.Strategy, Lanes: []wire.LaneTrim{}}
	var failure error
	for _, lane := range lanes {
		n, err := s.d.Streams.StreamLength(ctx, s.d.Streams.Keys.Jobs(lane))
		if err != nil {
			failure = err
			break
		}
		var tr stream.TrimResult
		switch {
		case n == 0:
			// Nothing to trim (and a missing stream has no group to ask).
		case req.Strategy == "safe":
			tr, err = s.d.Streams.TrimSafe(ctx, lane, req.DryRun)
		default:
			tr, err = s.d.Streams.TrimMaxLen(ctx, lane, *req.MaxLen, req.DryRun)
		}
		if err != nil {
			failure = err
			break
		}
		out.Lanes = append(out.Lanes, wire.LaneTrim{Lane: string(lane), LengthBefore: tr.Before, LengthAfter: tr.After, MinID: tr.MinID})
		out.LengthBefore += tr.Before
		out.LengthAfter += tr.After
	}
	params := map[string]any{"lane": req.Lane, "strategy": req.Strategy}
	if req.MaxLen != nil {
		params["maxlen"] = *req.MaxLen
	}
	counts := map[string]any{"length_before": out.LengthBefore, "length_after": out.LengthAfter,
		"removed": out.LengthBefore - out.LengthAfter}
	if failure != nil {
		counts["error"] = failure.Error()
	}
	s.addAudit(r, tok, "trim", req.DryRun, params, counts)
	if failure != nil {
		return unavailable("trim", failure)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
