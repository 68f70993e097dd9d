package api

import (
	"net/http"

	"oj/core/job"
	"oj/core/ops"
	"oj/core/store"
	"oj/core/wire"
)

// action is an admin action that changes something, as every route of one reads and
// answers it (act): the request's body and its rules, the call into core/ops (audited,
// dry-run aware) and how that call's failure is answered.
type action[R any] struct {
	// body is where the JSON body is decoded, and dryRun its dry_run field; nil: the body
	// is {"dry_run"} alone (wire.ActionRequest).
	body   any
	dryRun *bool
	// queryOnly is a route that reads no body (a DELETE): its dry run is the query's.
	queryOnly bool
	// check holds the request to its own rules once the body is read, before anything is
	// done; nil when it has none.
	check func() error
	// do calls core/ops and answers the audited result.
	do func(ops.Request) (R, error)
	// what names the action in an error answer; notFound, when set, is the 404's message
	// and the refusals (store.ErrConflict) are 409s (opsError); without it every error of
	// do is a 503.
	what, notFound string
}

// act reads an admin action (readAction), does it and writes its result, 200.
func act[R any](s *Server, w http.ResponseWriter, r *http.Request, tok *store.Token, a action[R]) error {
	body, dryRun := a.body, a.dryRun
	if body == nil && !a.queryOnly {
		var req wire.ActionRequest
		body, dryRun = &req, &req.DryRun
	}
	or, err := s.readAction(w, r, tok, body, dryRun, a.check)
	if err != nil {
		return err
	}
	out, err := a.do(or)
	switch {
	case err != nil && a.notFound != "":
		return opsError(a.what, err, a.notFound)
	case err != nil:
		return unavailable(a.what, err)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// readAction reads an admin action's request: its JSON body into body (none when nil),
// the request's own rules (check, may be nil), then who asks (opsRequest) with the body's
// dry_run at dryRun (nil: the query's alone).
func (s *Server) readAction(w http.ResponseWriter, r *http.Request, tok *store.Token, body any, dryRun *bool,
	check func() error) (ops.Request, error) {
	if body != nil {
		if err := decodeAdmin(w, r, body); err != nil {
			return ops.Request{}, err
		}
	}
	if check != nil {
		if err := check(); err != nil {
			return ops.Request{}, err
		}
	}
	asked := false
	if dryRun != nil {
		asked = *dryRun
	}
	return s.opsRequest(r, tok, asked)
}

// actionRequest reads an admin action whose body is {"dry_run"} alone.
func (s *Server) actionRequest(w http.ResponseWriter, r *http.Request, tok *store.Token) (ops.Request, error) {
	var req wire.ActionRequest
	return s.readAction(w, r, tok, &req, &req.DryRun, nil)
}

// opsRequest is who asks for an admin action: the token's name, dry_run from the body or
// the query (a misspelt query value is a 400), and the request's trace id.
func (s *Server) opsRequest(r *http.Request, tok *store.Token, dryRun bool) (ops.Request, error) {
	q, err := queryDryRun(r)
	if err != nil {
		return ops.Request{}, err
	}
	return ops.Request{Actor: tok.Name, DryRun: dryRun || q, TraceID: infoFrom(r.Context()).traceID}, nil
}

// idsOrAll holds a request on a set of dead letters to naming them by id or all of them,
// one of the two.
func idsOrAll(ids []string, all bool) error {
	if all == (len(ids) > 0) {
		return errorf(http.StatusBadRequest, codeBadRequest, `give either "ids" or "all": true`)
	}
	for _, id := range ids {
		if !job.IsSubmissionID(id) {
			return errorf(http.StatusBadRequest, codeBadRequest, "ids: %q is not a submission id (36 characters, lowercase hex and hyphens)", quoteClip(id, 60))
		}
	}
	return nil
}
