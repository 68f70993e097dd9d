package judge0

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	j0 "oj/core/judge0"
	"oj/core/store"
)

// show is GET /submissions/{token}: the run whose public token it is, in Judge0's
// shape; 404 with an empty body, as in Judge0, for a token no run has.
func (f *Face) show(w http.ResponseWriter, r *http.Request) {
	if _, err := f.authorize(w, r, capability); err != nil {
		return
	}
	fields, err := j0.ParseFields(r.URL.Query().Get("fields"))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody(err.Error()))
		return
	}
	token := r.PathValue("token")
	sub, err := store.GetRunByPublicToken(r.Context(), f.d.DB, token)
	switch {
	case errors.Is(err, store.ErrNotFound):
		w.WriteHeader(http.StatusNotFound)
		return
	case err != nil:
		f.unavailable(w, "read submission", err)
		return
	}
	f.d.Host.NoteSubmission(r.Context(), sub.ID)
	out, err := j0.Render(sub, token, f.languages(r.Context()), fields, boolParam(r, "base64_encoded"))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody(err.Error()))
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// batchShow is GET /submissions/batch?tokens=a,b: {"submissions": [...]}, null for a
// token no run has, in the order asked.
func (f *Face) batchShow(w http.ResponseWriter, r *http.Request) {
	if _, err := f.authorize(w, r, capability); err != nil {
		return
	}
	fields, err := j0.ParseFields(r.URL.Query().Get("fields"))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody(err.Error()))
		return
	}
	var tokens []string
	for _, t := range strings.Split(strings.TrimSpace(r.URL.Query().Get("tokens")), ",") {
		if t = strings.TrimSpace(t); t != "" {
			tokens = append(tokens, t)
		}
	}
	switch {
	case len(tokens) > f.limits.MaxBatch:
		writeJSON(w, http.StatusBadRequest, errorBody(fmt.Sprintf("number of submissions in a batch should be less than or equal to %d", f.limits.MaxBatch)))
		return
	case len(tokens) == 0:
		writeJSON(w, http.StatusBadRequest, errorBody("there should be at least one submission in a batch"))
		return
	}
	subs, err := store.GetRunsByPublicTokens(r.Context(), f.d.DB, tokens)
	if err != nil {
		f.unavailable(w, "read submissions", err)
		return
	}
	langs := f.languages(r.Context())
	b64 := boolParam(r, "base64_encoded")
	out := make([]any, len(tokens))
	for i, s := range subs {
		if s == nil {
			continue
		}
		o, err := j0.Render(s, tokens[i], langs, fields, b64)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, errorBody("some attributes for one or more submissions cannot be converted to UTF-8, use base64_encoded=true query parameter"))
			return
		}
		out[i] = o
	}
	writeJSON(w, http.StatusOK, map[string]any{"submissions": out})
}

func (f *Face) unavailable(w http.ResponseWriter, what string, err error) {
	f.d.Log.Warn("judge0: "+what, "err", err)
	retryAfter(w, 2)
	writeJSON(w, http.StatusServiceUnavailable, errorBody("the database is unavailable; retry"))
}
