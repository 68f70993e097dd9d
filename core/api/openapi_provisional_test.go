package api_test

import (
	"testing"

	"oj/core/judge/problem/problemtest"
)

// A problem without a time limit of its own is closed to users until a verify derives
// it: its upload and GET show the provisional derivation, a user's submit is 409
// limits_provisional naming the command, an admin's is taken — each answer as the spec
// describes it.
func TestProvisionalProblemAnswersMatchTheSpec(t *testing.T) {
	t.Parallel()
	ck := newChecker(t)
	e := newEnv(t, envOpts{})
	alice, admin := tokenOf(e.alice), tokenOf(e.admin)
	do := func(c call) []byte { t.Helper(); _, b := ck.do(e.http.URL, c); return b }
	prov := problemtest.APlusB("title: Provisional\ntime_limit_ms: 10000\ntiming: {derive: true}\n" +
		"submissions:\n  - {source: submissions/accepted/ok.py, language: python3, expect: [AC]}\n")
	prov["submissions/accepted/ok.py"] = "print(3)\n"
	do(call{name: "upload of a provisional problem", method: "PUT", path: "/api/v1/problems/prov", token: admin,
		body: problemtest.Zip(prov), ctype: "application/zip", want: 201, check: wantInBody(`"state":"provisional"`)})
	do(call{name: "a provisional problem", method: "GET", path: "/api/v1/problems/prov", token: alice, want: 200,
		check: wantInBody(`"time_limit_derivation":{"state":"provisional"`)})
	do(call{name: "a user's submit to a provisional problem", method: "POST", path: "/api/v1/submissions", token: alice,
		body: submitBody("prov", "python3", "print(3)\n", 0), want: 409, check: wantInBody("ojctl problem verify prov")})
	do(call{name: "an admin's submit to a provisional problem", method: "POST", path: "/api/v1/submissions", token: admin,
		body: submitBody("prov", "python3", "print(3)\n", 0), want: 202})
	do(call{name: "a problem that gives its limit", method: "PUT", path: "/api/v1/problems/given", token: admin,
		body: problemtest.Zip(problemtest.APlusB("title: Given\n")), ctype: "application/zip", want: 201,
		check: wantInBody(`"time_limit_derivation":null`)})
	do(call{name: "a user's submit to it", method: "POST", path: "/api/v1/submissions", token: alice,
		body: submitBody("given", "python3", "print(3)\n", 0), want: 202})
}
