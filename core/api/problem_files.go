package api

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"oj/core/render"
	"path"
	"slices"
	"strconv"
	"strings"

	"oj/core/judge/problem"
	"oj/core/store"
)

// getSample is GET /api/v1/problems/{id}/samples/{n}/input|answer: a sample case's
// input or answer, of the latest version, to any token. A case that is not a sample is
// 404 like one that does not exist: hidden tests are never served.
func (s *Server) getSample(w http.ResponseWriter, r *http.Request, _ *store.Token) error {
	id := r.PathValue("id")
	pv, err := s.liveProblem(r, id)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(r.PathValue("n"))
	vis := render.VisibilityOf(pv.Meta)
	if err != nil || !vis.Samples[n] {
		return errorf(http.StatusNotFound, codeNotFound, "problem %q has no sample case %q (its samples are listed by GET /api/v1/problems/%s)", id, r.PathValue("n"), id)
	}
	var name string
	switch r.PathValue("file") {
	case "input":
		name = fmt.Sprintf("tests/%d.in", n)
	case "answer":
		name = fmt.Sprintf("tests/%d.out", n)
	default:
		return errorf(http.StatusNotFound, codeNotFound, "a sample has an input and an answer, not %q", r.PathValue("file"))
	}
	return s.serveFile(w, r, pv, name, "text/plain; charset=utf-8")
}

// getStatement is GET /api/v1/problems/{id}/statement/{path}: a file of the latest
// version's statement material (PDF, HTML, Markdown, LaTeX and their images, as
// shipped). Any token reads the public part — the statement and what it references,
// listed as statements; an admin reads the private rest too (statements_private:
// editorials, solution slides, properties files). What a user may not read is 404 like
// a file that does not exist.
func (s *Server) getStatement(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	id := r.PathValue("id")
	pv, err := s.liveProblem(r, id)
	if err != nil {
		return err
	}
	rel := r.PathValue("path")
	if rel == "" || path.Clean(rel) != rel || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, "..") ||
		!statementVisible(pv.Meta, rel, isAdmin(tok)) {
		return errorf(http.StatusNotFound, codeNotFound, "problem %q has no statement file %q (its files are listed by GET /api/v1/problems/%s)", id, rel, id)
	}
	pkg, err := s.storedPackage(r.Context(), pv.SHA256)
	if err != nil {
		return err
	}
	public, private := pkg.StatementFiles()
	file, ok := public[rel]
	if !ok && isAdmin(tok) {
		file, ok = private[rel]
	}
	if !ok {
		return errorf(http.StatusNotFound, codeNotFound, "the package of %s v%d has no statement file %s", pv.ProblemID, pv.Version, rel)
	}
	return servePackageFile(w, r, pkg, pv, file, contentType(rel))
}

// statementVisible reports whether the viewer may read the statement file rel of a
// version: one of its public statements, or (admins) one of its private ones. A version
// recorded before statements were split into public and private (no
// statements_private) listed all its statement files as public: its editorials are
// held back from users by their names.
func statementVisible(meta map[string]any, rel string, admin bool) bool {
	listed := func(key string) bool {
		raw, _ := meta[key].([]any)
		return slices.Contains(raw, any(rel))
	}
	if listed("statements") {
		_, split := meta["statements_private"]
		return admin || split || !editorialName(rel)
	}
	return admin && listed("statements_private")
}

// editorialName reports whether a statement file is named as editorial material:
// Polygon's tutorials and problem-properties.json, Kattis solution slides.
func editorialName(rel string) bool {
	base := strings.ToLower(path.Base(rel))
	return strings.HasPrefix(base, "tutorial") || strings.HasPrefix(base, "solution") || base == "problem-properties.json"
}

// liveProblem is the latest version of a live problem, 404 otherwise.
func (s *Server) liveProblem(r *http.Request, id string) (*store.ProblemVersion, error) {
	if !problemID.MatchString(id) {
		return nil, errorf(http.StatusNotFound, codeNotFound, "unknown problem %q", id)
	}
	pv, err := store.LatestProblem(r.Context(), s.d.DB, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errorf(http.StatusNotFound, codeNotFound, "unknown problem %q", id)
	}
	if err != nil {
		return nil, unavailable("read problem", err)
	}
	return pv, nil
}

// serveFile streams one file of a version's package. What a package ships is not the
// server's page: it is never run as one (a sandbox CSP, no sniffing).
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, pv *store.ProblemVersion, name, ctype string) error {
	pkg, err := s.storedPackage(r.Context(), pv.SHA256)
	if err != nil {
		return err
	}
	return servePackageFile(w, r, pkg, pv, name, ctype)
}

// servePackageFile streams the file name of pkg, the package of pv.
func servePackageFile(w http.ResponseWriter, r *http.Request, pkg *problem.Package, pv *store.ProblemVersion, name, ctype string) error {
	rc, size, err := pkg.Open(name)
	if err != nil {
		if problem.IsInvalid(err) {
			return errorf(http.StatusNotFound, codeNotFound, "the package of %s v%d has no %s", pv.ProblemID, pv.Version, name)
		}
		return err
	}
	defer rc.Close()
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Length", strconv.FormatInt(size, 10))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'")
	h.Set("Content-Disposition", fmt.Sprintf("inline; filename=%q", path.Base(name)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = io.Copy(w, rc)
	}
	return nil
}

// contentType names a statement file's type by its extension.
func contentType(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".md":
		return "text/markdown; charset=utf-8"
	case ".tex", ".sty", ".ftl":
		return "text/x-tex; charset=utf-8"
	case ".html", ".htm":
		return "text/html; charset=utf-8"
	case ".txt", ".interaction", "":
		return "text/plain; charset=utf-8"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}
