package api

import (
	"net/http"
	"oj/core/render"

	"oj/core/job"
	"oj/core/store"
	"oj/core/wire"
)

// Page sizes of GET /admin/v1/submissions.
const (
	listDefault = 50
	listMax     = 500
)

// listSubmissions is GET /admin/v1/submissions?state=&problem=&owner=&meta.KEY=&limit=&cursor=:
// the most recent submissions first, as summaries, keyset-paged on (created_at, id). A
// limit over the maximum is cut to it, as the other admin lists do; 400 for an unknown
// state, a limit that is not a positive integer, or a cursor this server did not give out.
func (s *Server) listSubmissions(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	return s.submissionList(w, r, store.SubmissionFilter{})
}

// ownSubmissions is GET /api/v1/submissions: a user token's own submissions, or every
// submission for a reader or admin token (which may filter by owner); otherwise as the
// admin list.
func (s *Server) ownSubmissions(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	var f store.SubmissionFilter
	if tok.Role == roleUser {
		if r.URL.Query().Get("owner") != "" {
			return errorf(http.StatusBadRequest, codeBadRequest, "owner: a user token lists its own submissions only")
		}
		f.OwnerID = &tok.ID
	}
	return s.submissionList(w, r, f)
}

// submissionList answers a page of f narrowed by the query's filters.
func (s *Server) submissionList(w http.ResponseWriter, r *http.Request, f store.SubmissionFilter) error {
	q := r.URL.Query()
	state := job.State(q.Get("state"))
	if state != "" && !state.Valid() {
		return errorf(http.StatusBadRequest, codeBadRequest, "state: %q is not one of queued, running, finished, dead, canceled", state)
	}
	if p := q.Get("problem"); p != "" && !problemID.MatchString(p) {
		return errorf(http.StatusBadRequest, codeBadRequest, "problem: %q is not a problem id", p)
	}
	if o := q.Get("owner"); len(o) > 100 {
		return errorf(http.StatusBadRequest, codeBadRequest, "owner: a token name is at most 100 bytes")
	}
	meta, aerr := metaFilter(r)
	if aerr != nil {
		return aerr
	}
	purpose, aerr := purposeQuery(r)
	if aerr != nil {
		return aerr
	}
	f.Purpose = purpose
	limit, err := queryInt(r, "limit", listDefault, listMax)
	if err != nil {
		return err
	}
	if limit == 0 {
		return errorf(http.StatusBadRequest, codeBadRequest, "limit: must be at least 1")
	}
	after, afterID, err := decodeCursor(q.Get("cursor"))
	if err != nil {
		return err
	}
	f.State, f.ProblemID, f.OwnerName, f.Metadata = state, q.Get("problem"), q.Get("owner"), meta
	// One row more than asked says whether there is a next page, so the last page has no
	// cursor leading to an empty one.
	f.Limit, f.AfterCreatedAt, f.AfterID = int(limit)+1, after, afterID
	items, err := store.ListSubmissions(r.Context(), s.d.DB, f)
	if err != nil {
		return unavailable("list submissions", err)
	}
	out := wire.SubmissionList{Items: make([]wire.SubmissionSummary, 0, min(len(items), int(limit)))}
	if len(items) > int(limit) {
		items = items[:limit]
		last := items[len(items)-1]
		out.NextCursor = encodeCursor(last.CreatedAt, last.ID)
	}
	for _, it := range items {
		out.Items = append(out.Items, summaryWire(it))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func summaryWire(s store.SubmissionSummary) wire.SubmissionSummary {
	out := wire.SubmissionSummary{ID: s.ID, ProblemID: s.ProblemID, Language: s.Language, State: string(s.State),
		Attempt: s.Attempt, CreatedAt: s.CreatedAt, FinishedAt: s.FinishedAt, Owner: s.Owner, Metadata: nonNilMeta(s.Metadata),
		Purpose: render.Purpose(s.Purpose)}
	if s.Verdict != "" {
		v, score, t, m := string(s.Verdict), s.Score, s.TimeMS, s.MemoryKB
		out.Verdict, out.Score, out.TimeMS, out.MemoryKB = &v, &score, &t, &m
	}
	return out
}
