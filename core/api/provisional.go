package api

import (
	"context"
	"net/http"

	"oj/core/store"
)

// A version whose package gives no time limit (Kattis's, derived from its accepted
// submissions) is judged with a generous provisional limit until a verify derives the
// real one. Judging contestants against it would accept what the real limit refuses
// and spend ten times the CPU on every TLE, so the version is closed to user tokens
// until then: their submits are refused with 409 limits_provisional, naming the command
// that opens it. Admins may still submit (to try the problem out), and a verify's own
// submissions are made by the store, not through submit.

// provisional reports whether pv's time limit still waits for a verify to derive it.
func provisional(pv *store.ProblemVersion) bool {
	p, _ := pv.Meta["time_limit_provisional"].(bool)
	return p
}

// openForSubmit refuses tok's submit to pv while pv's limit is provisional, unless tok
// is an admin's. A verification whose submissions have all ended is decided first, so
// a version is open from the moment its derived limit is known, read or not.
func (s *Server) openForSubmit(ctx context.Context, pv *store.ProblemVersion, tok *store.Token) (*store.ProblemVersion, *apiError) {
	if !provisional(pv) || tok.Role == roleAdmin {
		return pv, nil
	}
	if v, err := s.settleVerification(ctx, pv); err == nil && v.FinishedAt != nil {
		again, err := store.ProblemVersionAt(ctx, s.d.DB, pv.ProblemID, pv.Version)
		if err != nil {
			return nil, unavailable("read problem", err)
		}
		if pv = again; !provisional(pv) {
			return pv, nil
		}
	}
	s.metrics.submits.WithLabelValues("rejected").Inc()
	return nil, errorf(http.StatusConflict, codeProvisional,
		"problem %s's time limit is provisional until an admin verifies it: ojctl problem verify %s --wait "+
			"(POST /admin/v1/problems/%s/verify derives the limit from the package's accepted submissions)",
		pv.ProblemID, pv.ProblemID, pv.ProblemID)
}
