package judge0

import (
	"errors"
	"net/http"
	"strings"

	"oj/core/store"
)

// Judge0 authenticates with X-Auth-Token (AUTHN_TOKEN) and authorizes its admin calls
// with X-Auth-User (AUTHZ_TOKEN); both answer with an empty body, 401 and 403. oj maps
// both headers, and Authorization: Bearer, onto its own tokens: X-Auth-Token or Bearer
// is the caller, with the token's role and limits; X-Auth-User must be an admin token.

// need is what a route asks of the caller.
type need int

const (
	// capability: a read by a submission's token, or of the face's public lists; no
	// credentials needed when allow_unauthenticated_reads is on.
	capability need = iota
	// submitter: a user or admin token (a reader token creates nothing).
	submitter
	// admin: an admin token, by X-Auth-User or as the caller.
	admin
)

// errDenied is an answer already written.
var errDenied = errors.New("denied")

// secret is the caller's credential: X-Auth-Token, else a bearer token.
func secret(r *http.Request) string {
	if s := strings.TrimSpace(r.Header.Get("X-Auth-Token")); s != "" {
		return s
	}
	scheme, s, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if ok && strings.EqualFold(scheme, "Bearer") {
		return strings.TrimSpace(s)
	}
	return ""
}

// authorize resolves the caller for a route that needs n: the token (nil for an
// anonymous read), or errDenied with the answer written (401 no or bad credentials,
// 403 a token the route does not serve, 503 PostgreSQL cannot say).
func (f *Face) authorize(w http.ResponseWriter, r *http.Request, n need) (*store.Token, error) {
	cred := secret(r)
	if cred == "" && n == admin {
		// An admin call may carry its admin token in X-Auth-User alone.
		cred = strings.TrimSpace(r.Header.Get("X-Auth-User"))
	}
	tok, err := f.resolve(w, r, cred)
	if err != nil {
		return nil, err
	}
	if tok == nil && !(n == capability && f.cfg.AllowUnauthenticatedReads) {
		w.WriteHeader(http.StatusUnauthorized)
		return nil, errDenied
	}
	switch n {
	case submitter:
		if tok.Role == "reader" {
			w.WriteHeader(http.StatusForbidden)
			return nil, errDenied
		}
	case admin:
		if u := strings.TrimSpace(r.Header.Get("X-Auth-User")); u != "" {
			user, err := f.resolve(w, r, u)
			if err != nil {
				return nil, err
			}
			if user == nil {
				w.WriteHeader(http.StatusForbidden)
				return nil, errDenied
			}
			tok = user
		}
		if tok.Role != "admin" {
			w.WriteHeader(http.StatusForbidden)
			return nil, errDenied
		}
	}
	return tok, nil
}

// resolve is the token a secret names; nil for no secret.
func (f *Face) resolve(w http.ResponseWriter, r *http.Request, s string) (*store.Token, error) {
	if s == "" {
		return nil, nil
	}
	tok, err := f.d.Host.TokenFor(r, s)
	switch {
	case errors.Is(err, store.ErrNotFound):
		w.WriteHeader(http.StatusUnauthorized)
		return nil, errDenied
	case err != nil:
		f.d.Log.Warn("judge0: authenticate", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, errorBody("the database is unavailable; retry"))
		return nil, errDenied
	}
	return tok, nil
}
