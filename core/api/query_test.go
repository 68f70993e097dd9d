package api_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"oj/core/api"
	"oj/core/store"
)

// A query parameter a route does not take is a 400 that names it and suggests the one
// meant, never ignored: a misspelt dry run does not run for real, a misspelt filter does
// not list everything. A parameter given twice, one that does not parse, and a bare
// ?dry_run are refused alike.
func TestUnknownQueryParametersAreRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	ctx := context.Background()
	id := e.submit(e.alice, "print(1)")
	judged := e.waitTerminal(id, 20*time.Second)
	admin, alice := tokenOf(e.admin), tokenOf(e.alice)

	for _, c := range []struct {
		name, method, path, token string
		status                    int
		message                   string // in the answer's message
	}{
		{"a hyphen for the underscore of dry_run", "POST", "/admin/v1/submissions/" + id + "/rejudge?dry-run=true", admin, 400,
			`unknown query parameter "dry-run"; did you mean "dry_run"? (POST /admin/v1/submissions/{id}/rejudge takes dry_run)`},
		{"the same on a DELETE", "DELETE", "/api/v1/problems/aplusb?dry-run=true", admin, 400, `did you mean "dry_run"?`},
		{"dry_run without a value", "DELETE", "/api/v1/problems/aplusb?dry_run", admin, 400, `dry_run: "" (want true or false)`},
		{"dry_run with an empty value", "POST", "/admin/v1/problems/aplusb/rejudge?dry_run=", admin, 400, `dry_run: ""`},
		{"a misspelt filter", "GET", "/admin/v1/submissions?stat=dead", admin, 400, `unknown query parameter "stat"; did you mean "state"?`},
		{"a filter that does not exist", "GET", "/admin/v1/submissions?user=alice", admin, 400,
			`unknown query parameter "user" (GET /admin/v1/submissions takes state, problem, owner, purpose, limit, cursor, meta.*)`},
		{"a metadata filter without a key", "GET", "/admin/v1/submissions?meta.=x", admin, 400, `unknown query parameter "meta."`},
		{"a parameter given twice", "GET", "/admin/v1/submissions?limit=1&limit=2", admin, 400, `query parameter "limit" is given 2 times; give it once`},
		{"dry_run given twice", "POST", "/admin/v1/problems/aplusb/rejudge?dry_run=true&dry_run=false", admin, 400, `"dry_run" is given 2 times`},
		{"a bad escape", "POST", "/admin/v1/problems/aplusb/rejudge?dry_run=%zz", admin, 400, `query: invalid URL escape "%zz"`},
		{"a semicolon", "DELETE", "/api/v1/problems/aplusb?dry_run=true;x=1", admin, 400, `query: invalid semicolon separator in query`},
		{"a route that takes none", "GET", "/api/v1/languages?lang=c11", alice, 400,
			`unknown query parameter "lang": GET /api/v1/languages takes no query parameters`},
		{"a long name is cut", "GET", "/api/v1/languages?" + strings.Repeat("x", 100) + "=1", alice, 400, `"` + strings.Repeat("x", 40) + `…"`},
		{"health", "GET", "/healthz?verbose=1", "", 400, `GET /healthz takes no query parameters`},
		{"metrics", "GET", "/metrics?name[]=oj_api_requests_total", "", 400, `GET /metrics takes no query parameters`},
		{"without a token the token comes first", "GET", "/admin/v1/submissions?stat=dead", "", 401, "missing bearer token"},
		{"with a user token the role comes first", "GET", "/admin/v1/submissions?stat=dead", alice, 403, "needs an admin token"},
		{"an empty query is no parameter", "GET", "/admin/v1/submissions?", admin, 200, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, body := e.raw(c.method, c.path, c.token, nil, nil)
			msg := ""
			if eb, ok := body["error"].(map[string]any); ok {
				msg, _ = eb["message"].(string)
				if c.status == 400 && eb["code"] != "bad_request" {
					t.Errorf("code %v, want bad_request", eb["code"])
				}
			}
			if code != c.status || !strings.Contains(msg, c.message) {
				t.Fatalf("%s %s: %d %q, want %d with %q", c.method, c.path, code, msg, c.status, c.message)
			}
		})
	}

	// Nothing was done: the submission was not rejudged, the problem is still there, and
	// no audit row speaks of either.
	sub, err := store.GetSubmission(ctx, e.db, id)
	if err != nil || sub.Attempt != judged.Attempt || sub.State != "finished" {
		t.Fatalf("after refused rejudges: %+v %v (attempt was %d)", sub, err, judged.Attempt)
	}
	if _, err := e.admin.Problem(ctx, "aplusb"); err != nil {
		t.Fatalf("after refused removals: %v", err)
	}
	if got := auditActions(t, e); got["rejudge"]+got["rejudge_problem"]+got["problem_remove"] != 0 {
		t.Fatalf("audit rows of refused requests: %v", got)
	}
	// The spelling the route takes works.
	if code, _, body := e.raw("POST", "/admin/v1/submissions/"+id+"/rejudge?dry_run=true", admin, nil, nil); code != 200 ||
		body["would_rejudge"] != float64(1) {
		t.Fatalf("rejudge?dry_run=true: %d %v", code, body)
	}
}

// The dispatcher's and the worker's health listener is as strict as the API's.
func TestHealthHandlerTakesNoQueryParameters(t *testing.T) {
	t.Parallel()
	h := api.HealthHandler(nil, nil, prometheus.NewRegistry())
	for path, want := range map[string]int{"/healthz": 200, "/healthz?x=1": 400, "/metrics?name[]=x": 400} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != want || (want == 400 && !strings.Contains(rec.Body.String(), "takes no query parameters")) {
			t.Errorf("GET %s: %d %s, want %d", path, rec.Code, rec.Body, want)
		}
	}
}
