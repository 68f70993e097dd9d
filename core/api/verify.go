package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"oj/core/judge/objstore"
	"oj/core/judge/problem"
	"oj/core/store"
	"oj/core/verification"
	"oj/core/wire"
)

// verifyProblem is POST /admin/v1/problems/{id}/verify [{"dry_run"}] (audited): the
// latest version's labeled submissions are queued on the rejudge lane as verification
// submissions (ops.VerifyProblem); 202 with what was queued. A package without labeled
// submissions is a 409.
func (s *Server) verifyProblem(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	or, id, err := s.problemAction(w, r, tok)
	if err != nil {
		return err
	}
	pv, err := store.LatestProblem(r.Context(), s.d.DB, id)
	if errors.Is(err, store.ErrNotFound) {
		return errorf(http.StatusNotFound, codeNotFound, "unknown problem %q", id)
	}
	if err != nil {
		return unavailable("read problem", err)
	}
	pkg, err := s.storedPackage(r.Context(), pv.SHA256)
	if err != nil {
		return err
	}
	spec := pkg.Spec
	if len(spec.Submissions) == 0 {
		return errorf(http.StatusConflict, codeConflict, "problem %q v%d has no labeled submissions to verify (its package lists none under submissions:)", id, pv.Version)
	}
	nv := store.NewVerification{ProblemID: id, Version: pv.Version, SHA256: pv.SHA256, TraceID: infoFrom(r.Context()).traceID,
		RunLimitMS: runLimit(pv, spec)}
	for _, sub := range spec.Submissions {
		e := store.VerifyEntry{Source: sub.Source, Language: sub.Language, Expect: sub.Expect, Label: sub.Label, Note: sub.Note,
			TimeLimit: sub.TimeLimit == nil || *sub.TimeLimit}
		if e.Language != "" {
			if _, ok := s.d.Languages.Get(e.Language); !ok {
				e.Note, e.Language = fmt.Sprintf("language %s is not configured on this server", e.Language), ""
			}
		}
		if e.Language != "" {
			code, err := pkg.ReadFile(sub.Source, int64(s.lim.MaxSourceBytes))
			switch {
			case problem.IsInvalid(err) && errors.Is(err, problem.ErrTooLarge):
				e.Note, e.Language = fmt.Sprintf("source over %d bytes (api.limits.max_source_bytes)", s.lim.MaxSourceBytes), ""
			case err != nil:
				return errorf(http.StatusConflict, codeConflict, "read %s from the stored package: %v", sub.Source, err)
			case len(bytes.TrimSpace(code)) == 0:
				e.Note, e.Language = "empty source", ""
			default:
				e.Code = string(code)
			}
		}
		nv.Entries = append(nv.Entries, e)
	}
	c, err := s.ops.VerifyProblem(r.Context(), or, nv)
	if err != nil {
		return opsError("verify", err, fmt.Sprintf("unknown problem %q", id))
	}
	status := http.StatusAccepted
	if or.DryRun {
		status = http.StatusOK
	}
	writeJSON(w, status, wire.VerifyStarted{DryRun: or.DryRun, ProblemID: id, Version: c.Version, VerificationID: c.VerificationID,
		Submissions: c.Submissions, NotRun: c.NotRun, RunLimitMS: c.RunLimitMS})
	return nil
}

// runLimit is the time limit a verification's submissions run with: the version's ×
// time_limit_to_tle, so that a TLE-labeled one shows how far past the limit it goes; a
// provisional limit as it is (it is generous, and the limit is derived from the times).
func runLimit(pv *store.ProblemVersion, spec problem.Spec) int {
	if prov, _ := pv.Meta["time_limit_provisional"].(bool); prov {
		return pv.TimeLimitMS
	}
	m := 1.5
	if spec.Timing != nil {
		m = spec.Timing.TimeLimitToTLE
	}
	return min(60000, int(float64(pv.TimeLimitMS)*m+0.999))
}

// storedPackage reads a version's package from the object store.
func (s *Server) storedPackage(ctx context.Context, sha string) (*problem.Package, error) {
	rc, err := s.d.Objects.Get(ctx, objstore.ProblemKey(sha))
	if err != nil {
		return nil, unavailable("read package", err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, s.d.PackageLimits.MaxZipBytes+1))
	if err != nil {
		return nil, unavailable("read package", err)
	}
	pkg, err := problem.ReadBytes(b, s.d.PackageLimits)
	if err != nil {
		return nil, errorf(http.StatusConflict, codeConflict, "the stored package %s no longer reads under this server's judge.package_limits: %v", sha, err)
	}
	return pkg, nil
}

// getVerification is GET /admin/v1/problems/{id}/verify[?version=N]: the version's
// latest verification, its table once every submission ended.
func (s *Server) getVerification(w http.ResponseWriter, r *http.Request, _ *store.Token) error {
	id := r.PathValue("id")
	if !problemID.MatchString(id) {
		return errorf(http.StatusNotFound, codeNotFound, "unknown problem %q", id)
	}
	var pv *store.ProblemVersion
	var err error
	if v := r.URL.Query().Get("version"); v != "" {
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 1 {
			return errorf(http.StatusBadRequest, codeBadRequest, "version: %q is not a version number", v)
		}
		pv, err = store.ProblemVersionAt(r.Context(), s.d.DB, id, n)
	} else {
		pv, err = store.LatestProblem(r.Context(), s.d.DB, id)
	}
	if errors.Is(err, store.ErrNotFound) {
		return errorf(http.StatusNotFound, codeNotFound, "unknown problem or version %q", id)
	}
	if err != nil {
		return unavailable("read problem", err)
	}
	v, err := s.settleVerification(r.Context(), pv)
	if errors.Is(err, store.ErrNotFound) {
		return errorf(http.StatusNotFound, codeNotFound, "problem %q v%d has not been verified (POST /admin/v1/problems/%s/verify)", id, pv.Version, id)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

// settleVerification returns the version's latest verification. A running one whose
// submissions have all ended is decided now (verification.Compute) and stored, with the
// derived time limit if the version's was provisional; one still running lists its
// submissions as they are.
func (s *Server) settleVerification(ctx context.Context, pv *store.ProblemVersion) (*wire.Verification, error) {
	v, err := store.LatestVerification(ctx, s.d.DB, pv.ProblemID, pv.Version)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		return nil, unavailable("read verification", err)
	}
	out := &wire.Verification{ID: v.ID, ProblemID: v.ProblemID, Version: v.Version, State: v.State, CreatedAt: v.CreatedAt,
		FinishedAt: v.FinishedAt, RunLimitMS: v.RunLimitMS, Rows: []wire.VerifyRow{}, Problems: []string{}}
	if v.State == store.VerifyRunning {
		runs := map[string]*store.Submission{}
		all := true
		for _, e := range v.Entries {
			if e.SubmissionID == "" {
				continue
			}
			sub, err := store.GetSubmission(ctx, s.d.DB, e.SubmissionID)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return nil, unavailable("read verification submissions", err)
			}
			if sub != nil {
				runs[e.SubmissionID] = sub
				all = all && sub.State.Terminal()
			}
		}
		if !all {
			for _, e := range v.Entries {
				row := wire.VerifyRow{Source: e.Source, Language: e.Language, Label: e.Label, Expect: e.Expect,
					SubmissionID: e.SubmissionID, Note: e.Note, Status: "running", LimitMS: v.RunLimitMS}
				if sub := runs[e.SubmissionID]; sub != nil {
					row.Run, row.Got, row.TimeMS = string(sub.Verdict), string(sub.State), sub.TimeMS
				} else {
					row.Status = verification.NotRun
				}
				out.Rows = append(out.Rows, row)
			}
			judged := 0
			for _, sub := range runs {
				if sub.State.Terminal() {
					judged++
				}
			}
			out.Summary = fmt.Sprintf("running: %d of %d submissions judged", judged, len(runs))
			return out, nil
		}
		res := s.decide(ctx, pv, v, runs)
		state := store.VerifyFailed
		if res.Passed {
			state = store.VerifyPassed
		}
		derived := 0
		if res.Derived {
			derived = res.LimitMS
		}
		if _, err := store.FinishVerification(ctx, s.d.DB, v.ID, state, res, derived); err != nil {
			return nil, unavailable("finish verification", err)
		}
		if v, err = store.LatestVerification(ctx, s.d.DB, pv.ProblemID, pv.Version); err != nil {
			return nil, unavailable("read verification", err)
		}
		out.State, out.FinishedAt = v.State, v.FinishedAt
	}
	var res verification.Result
	if err := json.Unmarshal(v.Result, &res); err != nil {
		return nil, fmt.Errorf("decode verification %d: %w", v.ID, err)
	}
	out.LimitMS, out.Derived, out.SlowestACMS, out.SlowestACSource, out.Margin = res.LimitMS, res.Derived, res.SlowestACMS, res.SlowestACSource, res.Margin
	out.SlowestACLanguage, out.SlowestACMeasuredMS, out.SlowestACFactor = res.SlowestACLanguage, res.SlowestACMeasuredMS, res.SlowestACFactor
	out.AsLabeled, out.NotAsLabeled, out.Ambiguous, out.NotRun, out.Summary = res.AsLabeled, res.NotAsLabeled, res.Ambiguous, res.NotRun, res.Summary
	out.Problems = append(out.Problems, res.Problems...)
	for _, r := range res.Rows {
		out.Rows = append(out.Rows, wire.VerifyRow{Source: r.Source, Language: r.Language, Label: r.Label, Expect: r.Expect,
			SubmissionID: r.SubmissionID, Got: r.Got, Run: r.Run, TimeMS: r.TimeMS, LimitMS: r.LimitMS, TimeFactor: r.TimeFactor, Score: r.Score,
			Status: r.Status, Note: r.Note})
	}
	return out, nil
}

// decide computes a verification whose submissions all ended.
func (s *Server) decide(ctx context.Context, pv *store.ProblemVersion, v *store.Verification, runs map[string]*store.Submission) verification.Result {
	in := verification.Input{LimitMS: pv.TimeLimitMS, RunLimitMS: v.RunLimitMS, Entries: v.Entries, Runs: runs,
		Timing: verification.Timing{ACToTimeLimit: 2, TimeLimitToTLE: 1.5, ResolutionMS: 1000},
		Factor: func(l string) float64 {
			// The judge's factor for the language, then the problem's own (time_factors).
			f := metaTimeFactor(pv.Meta, l)
			if lang, ok := s.d.Languages.Get(l); ok {
				return lang.TimeFactor * f
			}
			return f
		}}
	in.Scoring, _ = pv.Meta["scoring"].(bool)
	in.Interactive, _ = pv.Meta["interactive"].(bool)
	if pkg, err := s.storedPackage(ctx, pv.SHA256); err == nil && pkg.Spec.Timing != nil {
		t := pkg.Spec.Timing
		in.Timing = verification.Timing{ACToTimeLimit: t.ACToTimeLimit, TimeLimitToTLE: t.TimeLimitToTLE, ResolutionMS: t.ResolutionMS}
	}
	in.Timing.Derive, _ = pv.Meta["time_limit_provisional"].(bool)
	return verification.Compute(in)
}

// verifySummary is the version's latest verification in short (admins settle it, as
// GET of its table does); nil when it has none.
func (s *Server) verifySummary(ctx context.Context, pv *store.ProblemVersion, admin bool) *wire.VerifySummary {
	var v *wire.Verification
	if admin {
		var err error
		if v, err = s.settleVerification(ctx, pv); err != nil {
			return nil
		}
	} else {
		sv, err := store.LatestVerification(ctx, s.d.DB, pv.ProblemID, pv.Version)
		if err != nil {
			return nil
		}
		var res verification.Result
		_ = json.Unmarshal(sv.Result, &res)
		v = &wire.Verification{ID: sv.ID, State: sv.State, Summary: res.Summary, CreatedAt: sv.CreatedAt, FinishedAt: sv.FinishedAt}
	}
	return &wire.VerifySummary{ID: v.ID, State: v.State, Summary: v.Summary, CreatedAt: v.CreatedAt, FinishedAt: v.FinishedAt}
}
