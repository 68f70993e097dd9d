package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"oj/core/job"
	"oj/core/judge/objstore"
	"oj/core/render"
	"oj/core/store"
	"oj/core/wire"
)

const (
	// maxCasesObject bounds how much of an attempt's cases.json the API reads. The worker
	// writes about 3×judge.excerpt_bytes+1 KiB per case (4 KiB with the defaults), so this
	// covers thousands of cases; an object over it is not read at all rather than cut
	// into invalid JSON.
	maxCasesObject = 16 << 20
	// maxExcerpt bounds each excerpt in an answer, whatever the object store holds.
	maxExcerpt = 64 << 10
)

// getCase is GET /api/v1/submissions/{id}/cases/{n}: case n (its index, as in the
// submission's cases) of the current result, with what the solution wrote. The case
// fields come from PostgreSQL; the excerpts from the object store, for the attempt that
// produced the result. Visibility is getSubmission's: 404 for another user's submission,
// the checker's own message for admins only, and the excerpts of a hidden case for
// admins only (caseView).
//
// When the excerpts are missing (judge.store_artefacts off, the object removed, or
// unreadable as JSON) the case is still answered, with empty stdout and stderr and
// ExcerptsNote saying why: the verdict and message are worth having without them.
func (s *Server) getCase(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	n, aerr := caseNumber(r.PathValue("n"))
	if aerr != nil {
		return aerr
	}
	sub, err := s.visibleSubmission(r, tok)
	if err != nil {
		return err
	}
	c, aerr := caseOf(sub, n)
	if aerr != nil {
		return aerr
	}
	view, err := s.caseViewOf(r.Context(), tok, sub)
	if err != nil {
		return unavailable("read submission", err)
	}
	out := wire.CaseDetail{SubmissionID: sub.ID, Attempt: sub.Attempt, Case: view.Case(render.Case(c))}
	if !view.Shown(n) {
		// Not even read: what a hidden case's run wrote stays with the admins.
		out.ExcerptsNote = render.HiddenExcerptsNote
		writeJSON(w, http.StatusOK, out)
		return nil
	}
	stdout, stderr, note, err := s.readExcerpts(r.Context(), sub.ID, sub.Attempt, n)
	if err != nil {
		return unavailable("read case output", err)
	}
	out.Stdout, out.Stderr, out.ExcerptsNote = stdout, stderr, note
	writeJSON(w, http.StatusOK, out)
	return nil
}

// caseNumber parses {n}: a case index is a positive integer.
func caseNumber(raw string) (int, *apiError) {
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		return 0, errorf(http.StatusBadRequest, codeBadRequest, "case %q: want a case index, a positive integer (the cases of GET /api/v1/submissions/{id})", quoteClip(raw, 40))
	}
	return n, nil
}

// caseOf finds case n in the submission's current result; 404 says why there is none.
func caseOf(sub *store.Submission, n int) (job.CaseResult, *apiError) {
	if sub.State != job.StateFinished {
		return job.CaseResult{}, errorf(http.StatusNotFound, codeNotFound, "submission %s has no case results yet: state %s", sub.ID, sub.State)
	}
	if len(sub.Cases) == 0 {
		why := "verdict " + string(sub.Verdict)
		switch sub.Verdict {
		case job.VerdictCE:
			why += " (compile error: see the submission's compile_output)"
		case job.VerdictSE:
			why += " (system error: see the submission's error)"
		}
		return job.CaseResult{}, errorf(http.StatusNotFound, codeNotFound, "submission %s has no case results: %s", sub.ID, why)
	}
	for _, c := range sub.Cases {
		if c.Index == n {
			return c, nil
		}
	}
	return job.CaseResult{}, errorf(http.StatusNotFound, codeNotFound, "submission %s has no case %d (its cases are %s)", sub.ID, n, indexRange(sub.Cases))
}

// indexRange describes the case indexes: "1-12", or a list when they are not contiguous.
func indexRange(cases []job.CaseResult) string {
	lo, hi := cases[0].Index, cases[0].Index
	for _, c := range cases {
		lo, hi = min(lo, c.Index), max(hi, c.Index)
	}
	if hi-lo+1 == len(cases) {
		return fmt.Sprintf("%d-%d", lo, hi)
	}
	idx := make([]string, 0, min(len(cases), 20))
	for i, c := range cases {
		if i == 20 {
			idx = append(idx, "…")
			break
		}
		idx = append(idx, strconv.Itoa(c.Index))
	}
	return strings.Join(idx, ", ")
}

// readExcerpts reads case n's excerpts of the attempt from the object store. A missing,
// oversized or malformed object, or one without case n, is not an error: the note says
// what is missing. err is for a store that failed to answer (retry later).
func (s *Server) readExcerpts(ctx context.Context, id string, attempt, n int) (stdout, stderr, note string, err error) {
	if s.d.Objects == nil {
		return "", "", "no output excerpts: this server has no object store configured", nil
	}
	key := objstore.RunKey(id, attempt, objstore.CasesFile)
	rc, err := s.d.Objects.Get(ctx, key)
	if errors.Is(err, objstore.ErrNotFound) {
		return "", "", fmt.Sprintf("no output excerpts stored for attempt %d (the worker's judge.store_artefacts is off, or %s was removed)", attempt, key), nil
	}
	if err != nil {
		return "", "", "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxCasesObject+1))
	if err != nil {
		return "", "", "", err
	}
	if len(b) > maxCasesObject {
		return "", "", fmt.Sprintf("output excerpts not shown: %s is over %d MiB", key, maxCasesObject>>20), nil
	}
	var sc objstore.RunCases
	if err := json.Unmarshal(b, &sc); err != nil {
		return "", "", fmt.Sprintf("output excerpts not shown: %s is not valid JSON (%v)", key, err), nil
	}
	for _, c := range sc.Cases {
		if c.Index == n {
			return excerptText(c.Stdout), excerptText(c.Stderr), "", nil
		}
	}
	return "", "", fmt.Sprintf("no output excerpt of case %d in %s", n, key), nil
}

// excerptText is a stored excerpt as the API sends it: valid UTF-8 without NUL, at most
// maxExcerpt bytes (the worker already bounds it; the object store is not trusted to).
func excerptText(s string) string {
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", "\uFFFD"), "\uFFFD")
	if len(s) <= maxExcerpt {
		return s
	}
	cut := maxExcerpt
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…[truncated]"
}

// quoteClip cuts s to n bytes for quoting it in an error.
func quoteClip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
