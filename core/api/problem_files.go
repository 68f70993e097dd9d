package api

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"oj/core/render"
	"path"
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

// getStatement is GET /api/v1/problems/{id}/statement/{path}: a statement file the
// latest version's package ships (PDF, HTML, Markdown, LaTeX and their images, as
// shipped), to any token.
func (s *Server) getStatement(w http.ResponseWriter, r *http.Request, _ *store.Token) error {
	id := r.PathValue("id")
	pv, err := s.liveProblem(r, id)
	if err != nil {
		return err
	}
	rel := r.PathValue("path")
	if rel == "" || path.Clean(rel) != rel || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, "..") {
		return errorf(http.StatusNotFound, codeNotFound, "no statement file %q", rel)
	}
	listed := false
	raw, _ := pv.Meta["statements"].([]any)
	for _, x := range raw {
		listed = listed || x == rel
	}
	if !listed {
		return errorf(http.StatusNotFound, codeNotFound, "problem %q has no statement file %q (its files are listed by GET /api/v1/problems/%s)", id, rel, id)
	}
	return s.serveFile(w, r, pv, "statement/"+rel, contentType(rel))
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
