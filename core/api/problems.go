package api

import (
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"slices"

	"oj/core/api/wire"
	"oj/core/judge/objstore"
	"oj/core/judge/problem"
	"oj/core/ops"
	"oj/core/render"
	"oj/core/store"
)

// problemID is the schema's CHECK on problems.id.
var problemID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// putProblem is PUT /api/v1/problems/{id} (admin): the body is a package zip. It is
// validated (400 with the reason), stored content-addressed, its testlib checker or
// interactor compiled by a worker (400 with the compiler's message when it does not
// compile, 503 when no worker answers), and recorded as the problem's next version (201).
func (s *Server) putProblem(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	id := r.PathValue("id")
	if !problemID.MatchString(id) {
		return errorf(http.StatusBadRequest, codeBadRequest, "problem id %q: want 1-64 of a-z, 0-9, _ and -, starting with a letter or digit", id)
	}
	body, pkg, err := s.readPackage(r)
	if err != nil {
		return err
	}
	sha, err := objstore.PutProblem(r.Context(), s.d.Objects, body)
	if err != nil {
		return unavailable("store package", err)
	}
	// The package is in the object store, where the worker fetches it; it becomes a
	// version only once its checker and interactor compile.
	if aerr := s.buildTools(r.Context(), sha, pkg); aerr != nil {
		return aerr
	}
	latest, err := s.recordProblemVersion(r.Context(), id, sha, pkg, tok)
	if err != nil {
		return err
	}
	s.ops.Record(r.Context(), ops.Request{Actor: tok.Name, TraceID: infoFrom(r.Context()).traceID}, ops.ActionProblemPush,
		pushParams{ProblemID: id, SHA256: sha}, pushCounts{Version: latest.Version, Cases: latest.CaseCount}, nil)
	writeJSON(w, http.StatusCreated, problemWire(latest))
	return nil
}

// readPackage reads the body, at most MaxProblemBytes (the route's limit, limitBody), and
// validates it as a package; an invalid one is a 400 that says why. The raw bytes are
// what gets stored.
func (s *Server) readPackage(r *http.Request) ([]byte, *problem.Package, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if tooLarge, ok := bodyTooLarge(r, err); ok {
			return nil, nil, tooLarge
		}
		return nil, nil, errorf(http.StatusBadRequest, codeBadRequest, "read body: %v", err)
	}
	pkg, err := problem.ReadBytes(body, s.d.PackageLimits)
	if err != nil {
		if problem.IsInvalid(err) {
			return nil, nil, errorf(http.StatusBadRequest, codeInvalidPackage, "%s", err.Error())
		}
		return nil, nil, err
	}
	return body, pkg, nil
}

// recordProblemVersion records pkg, stored as sha, as problem id's next version, then
// reads the problem's latest version back for the answer: its number and created_at
// come from PostgreSQL.
func (s *Server) recordProblemVersion(ctx context.Context, id, sha string, pkg *problem.Package, tok *store.Token) (*store.ProblemVersion, error) {
	subtasks := make([]wire.Subtask, 0, len(pkg.Subtasks()))
	for _, st := range pkg.Subtasks() {
		subtasks = append(subtasks, wire.Subtask{Score: st.Score, Cases: st.Cases})
	}
	pv := store.ProblemVersion{ProblemID: id, SHA256: sha, Title: pkg.Title(), TimeLimitMS: pkg.Spec.TimeLimitMS,
		MemoryLimitMB: pkg.Spec.MemoryLimitMB, CaseCount: pkg.CaseCount(), CreatedBy: tok.Name,
		Meta: map[string]any{"subtasks": subtasks, "checker": pkg.CheckerType(), "interactive": pkg.Interactive(),
			"stop_on_first_failure": pkg.Spec.StopOnFirstFailure, "samples": nonNil(pkg.Spec.Samples),
			"public_tests": pkg.Spec.PublicTests}}
	if _, err := store.CreateProblemVersion(ctx, s.d.DB, pv); err != nil {
		return nil, unavailable("record problem version", err)
	}
	latest, err := store.LatestProblem(ctx, s.d.DB, id)
	if err != nil {
		return nil, unavailable("read problem", err)
	}
	return latest, nil
}

// pushParams and pushCounts are a problem upload's audit row.
type pushParams struct {
	ProblemID string `json:"problem_id"`
	SHA256    string `json:"sha256"`
}

type pushCounts struct {
	Version int `json:"version"`
	Cases   int `json:"cases"`
}

// getProblem is GET /api/v1/problems/{id}: the latest version's description.
func (s *Server) getProblem(w http.ResponseWriter, r *http.Request, _ *store.Token) error {
	id := r.PathValue("id")
	if !problemID.MatchString(id) {
		// Not an id any problem can have, and maybe not text PostgreSQL can take.
		return errorf(http.StatusNotFound, codeNotFound, "unknown problem %q", id)
	}
	pv, err := store.LatestProblem(r.Context(), s.d.DB, id)
	if errors.Is(err, store.ErrNotFound) {
		return errorf(http.StatusNotFound, codeNotFound, "unknown problem %q", id)
	}
	if err != nil {
		return unavailable("read problem", err)
	}
	writeJSON(w, http.StatusOK, problemWire(pv))
	return nil
}

func problemWire(pv *store.ProblemVersion) wire.Problem {
	p := wire.Problem{ID: pv.ProblemID, Title: pv.Title, TimeLimitMS: pv.TimeLimitMS, MemoryLimitMB: pv.MemoryLimitMB,
		Version: pv.Version, SHA256: pv.SHA256, CaseCount: pv.CaseCount, Subtasks: []wire.Subtask{}, CreatedAt: pv.CreatedAt}
	p.Checker, _ = pv.Meta["checker"].(string)
	p.Interactive, _ = pv.Meta["interactive"].(bool)
	p.StopOnFirstFailure, _ = pv.Meta["stop_on_first_failure"].(bool)
	vis := render.VisibilityOf(pv.Meta)
	p.PublicTests, p.Samples = vis.Public, make([]int, 0, len(vis.Samples))
	for c := range vis.Samples {
		p.Samples = append(p.Samples, c)
	}
	slices.Sort(p.Samples)
	if raw, ok := pv.Meta["subtasks"].([]any); ok {
		for _, x := range raw {
			m, _ := x.(map[string]any)
			st := wire.Subtask{}
			st.Score, _ = m["score"].(float64)
			cases, _ := m["cases"].([]any)
			for _, c := range cases {
				if f, ok := c.(float64); ok {
					st.Cases = append(st.Cases, int(f))
				}
			}
			p.Subtasks = append(p.Subtasks, st)
		}
	}
	return p
}

// nonNil is xs, or an empty list for nil: stored and answered as [], never null.
func nonNil(xs []int) []int {
	if xs == nil {
		return []int{}
	}
	return xs
}
