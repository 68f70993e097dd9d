package api_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestSamplesAndStatementsServed: any token reads a problem's sample cases and its
// statement files; a hidden test is never served, whatever the path asks for.
func TestSamplesAndStatementsServed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true})
	ctx := context.Background()
	pkg := zipOf(map[string]string{
		"problem.yaml":                    "name: Echo\nlimits:\n  time_limit: 1\n",
		"data/sample/1.in":                "sample input\n",
		"data/sample/1.ans":               "sample answer\n",
		"data/secret/1.in":                "SECRET input\n",
		"data/secret/1.ans":               "SECRET answer\n",
		"problem_statement/problem.en.md": "# Echo\n\n![echo](fig/echo.svg)\n",
		"problem_statement/fig/echo.svg":  "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
	})
	if _, err := e.admin.PutProblem(ctx, "echo", strings.NewReader(pkg)); err != nil {
		t.Fatal(err)
	}
	p, err := e.alice.Problem(ctx, "echo")
	if err != nil {
		t.Fatal(err)
	}
	if p.Format != "kattis" || p.CaseCount != 2 || !slices.Equal(p.Samples, []int{1}) ||
		!slices.Equal(p.Statements, []string{"fig/echo.svg", "problem.en.md"}) {
		t.Fatalf("problem %+v: want kattis, 2 cases, sample 1, two statement files", p)
	}
	if p.Import != nil {
		t.Fatalf("a user sees the import record (it names hidden files): %+v", p.Import)
	}

	get := func(path, token string) (int, http.Header, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, e.http.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	alice := tokenOf(e.alice)
	for path, want := range map[string]string{
		"/api/v1/problems/echo/samples/1/input":         "sample input\n",
		"/api/v1/problems/echo/samples/1/answer":        "sample answer\n",
		"/api/v1/problems/echo/statement/problem.en.md": "# Echo\n\n![echo](fig/echo.svg)\n",
		"/api/v1/problems/echo/statement/fig/echo.svg":  "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
	} {
		code, h, body := get(path, alice)
		if code != http.StatusOK || body != want {
			t.Errorf("GET %s: %d %q, want 200 %q", path, code, body, want)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || !strings.HasPrefix(h.Get("Content-Security-Policy"), "sandbox") {
			t.Errorf("GET %s: served without nosniff and a sandbox CSP: %v", path, h)
		}
	}
	// Case 2 is the hidden test: no path reaches it, and nothing of it leaks.
	for _, path := range []string{
		"/api/v1/problems/echo/samples/2/input",
		"/api/v1/problems/echo/samples/2/answer",
		"/api/v1/problems/echo/samples/0/input",
		"/api/v1/problems/echo/samples/1/output",
		"/api/v1/problems/echo/samples/1%2F..%2F2/input",
		"/api/v1/problems/echo/statement/..%2Ftests%2F2.in",
		"/api/v1/problems/echo/statement/tests%2F2.out",
		"/api/v1/problems/echo/statement/%2Ftests%2F2.in",
		"/api/v1/problems/echo/statement/fig%2F..%2F..%2Ftests%2F2.in",
		"/api/v1/problems/echo/statement/problem.yaml",
	} {
		code, _, body := get(path, alice)
		if code != http.StatusNotFound || strings.Contains(body, "SECRET") {
			t.Errorf("GET %s: %d %q, want 404 without the hidden test", path, code, body)
		}
	}
	if code, _, _ := get("/api/v1/problems/echo/samples/1/input", ""); code != http.StatusUnauthorized {
		t.Errorf("a sample without a token: %d, want 401", code)
	}
	if code, _, _ := get("/api/v1/problems/nosuch/samples/1/input", alice); code != http.StatusNotFound {
		t.Errorf("a sample of an unknown problem: %d, want 404", code)
	}
}
