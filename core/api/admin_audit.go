package api

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"oj/core/store"
	"oj/core/wire"
)

// adminBody bounds an admin action's request body (a replay may list many ids); the
// route applies it (limitBody).
var adminBody = bodyLimit{max: 4 << 20, what: "request body", limit: 4 << 20}

// decodeAdmin reads an admin action's JSON body into v; an empty body leaves v as is.
// A dry_run=true query parameter is honoured as well as the body's field.
func decodeAdmin(_ http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		if tooLarge, ok := bodyTooLarge(r, err); ok {
			return tooLarge
		}
		return errorf(http.StatusBadRequest, codeMalformed, "malformed JSON body: %v", err)
	}
	return nil
}

// queryDryRun reads ?dry_run=true. It is strict: a misspelt value is a 400, never a
// real run that was meant to be a dry one, and so is ?dry_run alone, which some would read
// as true (the route refuses a misspelt name, checkQuery).
func queryDryRun(r *http.Request) (bool, error) {
	q := r.URL.Query()
	if !q.Has("dry_run") {
		return false, nil
	}
	v := q.Get("dry_run")
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, errorf(http.StatusBadRequest, codeBadRequest, "dry_run: %q (want true or false)", v)
	}
	return b, nil
}

// queryInt reads an integer query parameter within [1, max], def when absent.
func queryInt(r *http.Request, name string, def, max int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, errorf(http.StatusBadRequest, codeBadRequest, "%s: %q is not a non-negative integer", name, v)
	}
	if max > 0 && n > max {
		n = max
	}
	return n, nil
}

// audit is GET /admin/v1/audit?limit=: the newest audit rows.
func (s *Server) audit(w http.ResponseWriter, r *http.Request, _ *store.Token) error {
	limit, err := queryInt(r, "limit", 100, 1000)
	if err != nil {
		return err
	}
	rows, err := store.ListAudit(r.Context(), s.d.DB, int(limit))
	if err != nil {
		return unavailable("list audit", err)
	}
	out := wire.Audit{Entries: make([]wire.AuditEntry, 0, len(rows))}
	for _, a := range rows {
		out.Entries = append(out.Entries, wire.AuditEntry{ID: a.ID, At: a.At, Actor: a.Actor, Action: a.Action,
			DryRun: a.DryRun, Params: a.Params, Counts: a.Counts})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
