package api

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"oj/core/spelling"
)

// routeInput is what a route takes besides its path: the query parameters it reads and
// how large a body. Every route declares it where it is registered (Server.Handler), so
// that none can forget it; a parameter it does not declare is refused before its handler
// runs (checkQuery), and its body is bounded there too (limitBody).
type routeInput struct {
	query     []string
	bodyLimit bodyLimit
}

// takes declares a route's query parameters (none for a route that takes none). Each may
// be given once: no route reads a repeated parameter. A name ending in ".*" (meta.*)
// stands for every parameter with that prefix and a non-empty rest (meta.contest).
func takes(query ...string) routeInput { return routeInput{query: query} }

// takesName reports whether the route takes the parameter name.
func (in routeInput) takesName(name string) bool {
	for _, q := range in.query {
		if prefix, ok := strings.CutSuffix(q, "*"); ok && len(name) > len(prefix) && strings.HasPrefix(name, prefix) {
			return true
		}
		if q == name {
			return true
		}
	}
	return false
}

// maxNameShown bounds how much of an unknown parameter's name an answer repeats.
const maxNameShown = 40

// checkQuery refuses a query the route does not take, with a 400 that names the
// parameter: one the route does not declare (with the declared one it most likely meant,
// so that ?dry-run=true is never taken for a real run), one given twice, or a query that
// does not parse (a bad %-escape, a ';'), which url.Values would drop without a word.
// Handlers then read each parameter with URL.Query().Get and parse its value strictly.
func checkQuery(r *http.Request, in routeInput) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	vals, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return errorf(http.StatusBadRequest, codeBadRequest, "query: %v", err)
	}
	names := make([]string, 0, len(vals))
	for name := range vals {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !in.takesName(name) {
			return unknownParameter(r, name, in.query)
		}
		if n := len(vals[name]); n > 1 {
			return errorf(http.StatusBadRequest, codeBadRequest, "query parameter %q is given %d times; give it once", name, n)
		}
	}
	return nil
}

// unknownParameter is the 400 for a parameter the route does not take.
func unknownParameter(r *http.Request, name string, valid []string) error {
	shown := name
	if len(shown) > maxNameShown {
		shown = shown[:maxNameShown] + "…"
	}
	route := r.Pattern
	if route == "" {
		route = r.Method + " " + r.URL.Path
	}
	if len(valid) == 0 {
		return errorf(http.StatusBadRequest, codeBadRequest, "unknown query parameter %q: %s takes no query parameters", shown, route)
	}
	hint := ""
	if s := spelling.Nearest(name, valid); s != "" {
		hint = fmt.Sprintf("; did you mean %q?", s)
	}
	return errorf(http.StatusBadRequest, codeBadRequest, "unknown query parameter %q%s (%s takes %s)", shown, hint, route, strings.Join(valid, ", "))
}

// strictQuery serves h only when the query is one in takes; a route behind authentication
// checks it after the token instead (authed), so that a caller without one learns nothing
// of the route.
func strictQuery(in routeInput, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkQuery(r, in); err != nil {
			writeError(w, r, err)
			return
		}
		h.ServeHTTP(w, r)
	})
}
