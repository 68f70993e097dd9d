package api

import (
	"context"
	"encoding/json"
	"slices"

	"oj/core/judge/problem"
	"oj/core/render"
	"oj/core/store"
	"oj/core/verification"
	"oj/core/wire"
)

// gradingMeta adds to a new version's meta what its grading and its time limit's
// derivation are shown from: the scoring tree (render.GradingOf reads it back, and
// every submission's groups are graded by it) and the package's timing multipliers.
func gradingMeta(meta map[string]any, spec problem.Spec) {
	if spec.Scoring != nil {
		meta["scoring_tree"] = render.ScoringMeta(spec.Scoring)
	}
	if t := spec.Timing; t != nil {
		meta["timing"] = map[string]any{"derive": t.Derive, "ac_to_time_limit": t.ACToTimeLimit,
			"time_limit_to_tle": t.TimeLimitToTLE, "resolution_ms": t.ResolutionMS}
	}
}

// timeLimitDerivation is where pv's time limit comes from when its package gives timing:
// provisional until a verify derives it, then derived by that verification, from its
// accepted submissions (listed to admins). nil when the package gives its own limit.
func (s *Server) timeLimitDerivation(ctx context.Context, pv *store.ProblemVersion, admin bool) *wire.TimeLimitDerivation {
	by, derived := pv.Meta["time_limit_derived_by"].(float64)
	if !provisional(pv) && !derived {
		return nil
	}
	d := &wire.TimeLimitDerivation{State: "provisional", LimitMS: pv.TimeLimitMS}
	if t, ok := pv.Meta["timing"].(map[string]any); ok {
		a, _ := t["ac_to_time_limit"].(float64)
		tle, _ := t["time_limit_to_tle"].(float64)
		res, _ := t["resolution_ms"].(float64)
		r := int(res)
		d.ACToTimeLimit, d.TimeLimitToTLE, d.ResolutionMS = &a, &tle, &r
	} else if pkg, err := s.storedPackage(ctx, pv.SHA256); err == nil && pkg.Spec.Timing != nil {
		// A version recorded before its multipliers were kept in meta.
		t := pkg.Spec.Timing
		d.ACToTimeLimit, d.TimeLimitToTLE, d.ResolutionMS = &t.ACToTimeLimit, &t.TimeLimitToTLE, &t.ResolutionMS
	}
	if !derived {
		return d
	}
	d.State, d.VerificationID = "derived", int64(by)
	v, err := store.VerificationByID(ctx, s.d.DB, d.VerificationID)
	if err != nil {
		return d
	}
	var res verification.Result
	if json.Unmarshal(v.Result, &res) != nil {
		return d
	}
	d.SlowestACMS, d.SlowestACSource = res.SlowestACMS, res.SlowestACSource
	if !admin {
		return d
	}
	d.From = []wire.DerivedFrom{}
	counted := map[string]bool{}
	for _, e := range v.Entries {
		if e.TimeLimit && slices.Equal(e.Expect, []string{"AC"}) && e.SubmissionID != "" {
			counted[e.SubmissionID] = true
		}
	}
	for _, r := range res.Rows {
		if counted[r.SubmissionID] && r.Run == "AC" {
			d.From = append(d.From, wire.DerivedFrom{Source: r.Source, Language: r.Language, SubmissionID: r.SubmissionID, TimeMS: r.TimeMS})
		}
	}
	return d
}
