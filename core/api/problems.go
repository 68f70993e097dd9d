package api

import (
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"slices"

	"oj/core/judge/objstore"
	"oj/core/judge/problem"
	"oj/core/judge/problem/formats"
	"oj/core/ops"
	"oj/core/render"
	"oj/core/store"
	"oj/core/wire"
)

// problemID is the schema's CHECK on problems.id.
var problemID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// putProblem is PUT /api/v1/problems/{id}[?format=oj|kattis|polygon] (admin): the body
// is a package zip of oj's own format, a Kattis package or a Polygon full package,
// detected from what it holds unless format forces one. It is validated and converted
// to oj's package (400 with the reason), stored content-addressed, its checker,
// validator or interactor compiled by a worker (400 with the compiler's message when
// it does not compile, 503 when no worker answers), and recorded as the problem's next
// version (201), with the format it came from and what was mapped.
func (s *Server) putProblem(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	id := r.PathValue("id")
	if !problemID.MatchString(id) {
		return errorf(http.StatusBadRequest, codeBadRequest, "problem id %q: want 1-64 of a-z, 0-9, _ and -, starting with a letter or digit", id)
	}
	im, err := s.readPackage(r)
	if err != nil {
		return err
	}
	if aerr := s.checkPackageLanguages(im); aerr != nil {
		return aerr
	}
	sha, err := objstore.PutProblem(r.Context(), s.d.Objects, im.Zip)
	if err != nil {
		return unavailable("store package", err)
	}
	// The package is in the object store, where the worker fetches it; it becomes a
	// version only once its checker and interactor compile.
	if aerr := s.buildTools(r.Context(), sha, im.Package); aerr != nil {
		return aerr
	}
	latest, err := s.recordProblemVersion(r.Context(), id, sha, im, tok)
	if err != nil {
		return err
	}
	s.ops.Record(r.Context(), ops.Request{Actor: tok.Name, TraceID: infoFrom(r.Context()).traceID}, ops.ActionProblemPush,
		pushParams{ProblemID: id, SHA256: sha, Format: im.Import.Format}, pushCounts{Version: latest.Version, Cases: latest.CaseCount}, nil)
	p := problemWire(latest, true)
	p.TimeLimitDerivation = s.timeLimitDerivation(r.Context(), latest, true)
	writeJSON(w, http.StatusCreated, p)
	return nil
}

// readPackage reads the body, at most MaxProblemBytes (the route's limit, limitBody),
// and reads it as a package of the format asked for (?format=) or detected; an invalid
// one is a 400 that says why. What gets stored is oj's package: the body itself, or
// what it converts to.
func (s *Server) readPackage(r *http.Request) (*formats.Imported, error) {
	format := r.URL.Query().Get("format")
	if format != "" && !slices.Contains(formats.Names, format) {
		return nil, errorf(http.StatusBadRequest, codeBadRequest, "format: %q is not a package format oj reads (want oj, kattis or polygon, or leave it out to detect it)", format)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if tooLarge, ok := bodyTooLarge(r, err); ok {
			return nil, tooLarge
		}
		return nil, errorf(http.StatusBadRequest, codeBadRequest, "read body: %v", err)
	}
	im, err := formats.ImportAs(body, format, r.PathValue("id"), s.d.PackageLimits)
	if err != nil {
		if problem.IsInvalid(err) {
			return nil, errorf(http.StatusBadRequest, codeInvalidPackage, "%s", err.Error())
		}
		return nil, err
	}
	return im, nil
}

// recordProblemVersion records the package im, stored as sha, as problem id's next
// version, then reads the problem's latest version back for the answer: its number and
// created_at come from PostgreSQL.
func (s *Server) recordProblemVersion(ctx context.Context, id, sha string, im *formats.Imported, tok *store.Token) (*store.ProblemVersion, error) {
	pkg := im.Package
	subtasks := make([]wire.Subtask, 0, len(pkg.Subtasks()))
	for _, st := range pkg.Subtasks() {
		subtasks = append(subtasks, wire.Subtask{Score: st.Score, Cases: st.Cases})
	}
	// The statement material: public (any token) and private (admins), by the names
	// GET …/statement/{path} serves them under.
	public, private := pkg.StatementFiles()
	mapped := make([]wire.Mapped, 0, len(im.Import.Mapped))
	for _, m := range im.Import.Mapped {
		mapped = append(mapped, wire.Mapped{From: m.From, To: m.To})
	}
	pv := store.ProblemVersion{ProblemID: id, SHA256: sha, Title: pkg.Title(), TimeLimitMS: pkg.Spec.TimeLimitMS,
		MemoryLimitMB: pkg.Spec.MemoryLimitMB, CaseCount: pkg.CaseCount(), CreatedBy: tok.Name,
		Meta: map[string]any{"subtasks": subtasks, "checker": pkg.CheckerType(), "interactive": pkg.Interactive(),
			"stop_on_first_failure": pkg.Spec.StopOnFirstFailure, "samples": nonNil(pkg.Spec.Samples),
			"public_tests": pkg.Spec.PublicTests, "format": im.Import.Format, "format_version": im.Import.Version,
			"import":                 wire.ProblemImport{Mapped: mapped, Notes: nonNilStrings(im.Import.Notes)},
			"time_limit_provisional": pkg.Spec.Timing != nil && pkg.Spec.Timing.Derive,
			"statements":             problem.Names(public), "statements_private": problem.Names(private),
			"scoring":             pkg.Spec.Scoring != nil,
			"labeled_submissions": len(pkg.Spec.Submissions)}}
	gradingMeta(pv.Meta, pkg.Spec)
	languagesMeta(pv.Meta, pkg.Spec)
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
	Format    string `json:"format"`
}

type pushCounts struct {
	Version int `json:"version"`
	Cases   int `json:"cases"`
}

// getProblem is GET /api/v1/problems/{id}: the latest version's description.
func (s *Server) getProblem(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
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
	admin := tok != nil && tok.Role == roleAdmin
	verify := s.verifySummary(r.Context(), pv, admin)
	if verify != nil && verify.FinishedAt != nil && pv.Meta["time_limit_provisional"] == true {
		// The verification just settled may have derived the limit: show it.
		if again, err := store.LatestProblem(r.Context(), s.d.DB, id); err == nil {
			pv = again
		}
	}
	p := problemWire(pv, admin)
	p.Verify = verify
	p.TimeLimitDerivation = s.timeLimitDerivation(r.Context(), pv, admin)
	writeJSON(w, http.StatusOK, p)
	return nil
}

// problemWire is a version as the API shows it; what was mapped from the original
// package (file names of hidden tests among it) only to admins.
func problemWire(pv *store.ProblemVersion, admin bool) wire.Problem {
	p := wire.Problem{ID: pv.ProblemID, Title: pv.Title, TimeLimitMS: pv.TimeLimitMS, MemoryLimitMB: pv.MemoryLimitMB,
		Version: pv.Version, SHA256: pv.SHA256, CaseCount: pv.CaseCount, Subtasks: []wire.Subtask{}, CreatedAt: pv.CreatedAt,
		Format: "oj", Statements: []string{}}
	p.Checker, _ = pv.Meta["checker"].(string)
	if f, ok := pv.Meta["format"].(string); ok && f != "" {
		p.Format = f
	}
	p.FormatVersion, _ = pv.Meta["format_version"].(string)
	p.TimeLimitProvisional, _ = pv.Meta["time_limit_provisional"].(bool)
	p.Scoring, _ = pv.Meta["scoring"].(bool)
	if n, ok := pv.Meta["labeled_submissions"].(float64); ok {
		p.LabeledSubmissions = int(n)
	}
	if raw, ok := pv.Meta["statements"].([]any); ok {
		for _, x := range raw {
			if f, ok := x.(string); ok && statementVisible(pv.Meta, f, admin) {
				p.Statements = append(p.Statements, f)
			}
		}
	}
	if admin {
		p.Import = importOf(pv.Meta)
		p.StatementsPrivate = []string{}
		raw, _ := pv.Meta["statements_private"].([]any)
		for _, x := range raw {
			if f, ok := x.(string); ok {
				p.StatementsPrivate = append(p.StatementsPrivate, f)
			}
		}
	}
	p.Languages, p.TimeFactors = nonNilStrings(metaLanguages(pv.Meta)), metaTimeFactors(pv.Meta)
	p.Interactive, _ = pv.Meta["interactive"].(bool)
	p.StopOnFirstFailure, _ = pv.Meta["stop_on_first_failure"].(bool)
	vis := render.VisibilityOf(pv.Meta)
	p.Grading = vis.Grading.Wire()
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

// importOf reads a version's import record ("import": mapped and notes).
func importOf(meta map[string]any) *wire.ProblemImport {
	im := &wire.ProblemImport{Mapped: []wire.Mapped{}, Notes: []string{}}
	raw, _ := meta["import"].(map[string]any)
	mapped, _ := raw["mapped"].([]any)
	for _, x := range mapped {
		m, _ := x.(map[string]any)
		from, _ := m["from"].(string)
		to, _ := m["to"].(string)
		im.Mapped = append(im.Mapped, wire.Mapped{From: from, To: to})
	}
	notes, _ := raw["notes"].([]any)
	for _, x := range notes {
		if n, ok := x.(string); ok {
			im.Notes = append(im.Notes, n)
		}
	}
	return im
}

// nonNilStrings is xs, or an empty list for nil.
func nonNilStrings(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// nonNil is xs, or an empty list for nil: stored and answered as [], never null.
func nonNil(xs []int) []int {
	if xs == nil {
		return []int{}
	}
	return xs
}
