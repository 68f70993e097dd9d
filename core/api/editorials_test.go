package api_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"oj/core/judge/problem/problemtest"
)

// TestEditorialsStayPrivate: packages as contest archives ship them import as they
// stand, and of their statement material a user token reads exactly the statement and
// the files it references: Polygon tutorials (in every place Polygon puts one), Kattis
// solution slides and problem-properties.json are 404 to a user and 200 to an admin; a
// DOMjudge-style problem.pdf is the public statement. The upload's answer says what
// became public and what stayed private.
func TestEditorialsStayPrivate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true})
	ctx := context.Background()
	cases := []struct {
		id, title string
		files     map[string]string
		public    map[string]string // path → body a user reads
		private   map[string]string // path → body only an admin reads
	}{
		{id: "polygon-twice", title: "Twice", files: problemtest.PolygonWithTutorials(),
			public: map[string]string{
				"english/problem.tex":                "",
				"english/twice.png":                  "PNG twice",
				"english/example.01":                 "1\n",
				"html/english/problem.html":          "",
				"html/english/problem-statement.css": "",
				"html/english/twice.png":             "PNG twice",
				"pdf/english/problem.pdf":            "%PDF statement",
			},
			private: map[string]string{
				"english/tutorial.tex":                    "EDITORIAL: multiply by two.\n",
				"html/english/tutorial.html":              "<p>EDITORIAL: multiply by two.</p>",
				"pdf/english/tutorial.pdf":                "%PDF EDITORIAL",
				"english/problem-properties.json":         "",
				"english/tutorial-figure.png":             "PNG EDITORIAL figure",
				"statement-sections/english/tutorial.tex": "EDITORIAL: multiply by two.\n",
			}},
		{id: "kattis-twice", title: "Twice the Number", files: problemtest.LegacyKattisUnnamed(),
			public: map[string]string{
				"problem.en.tex": "",
				"problem.sv.tex": "",
				"twice.png":      "PNG twice",
				"notes.tex":      "",
				"figs/sv.png":    "PNG sv",
			},
			private: map[string]string{
				"solution.tex":        "EDITORIAL: multiply by two.\n",
				"solution-slides.tex": "",
				"slides.tex":          "",
				"unused.png":          "PNG unused",
			}},
		{id: "domjudge-twice", title: "Twice", files: problemtest.DOMjudgeStyle(),
			public: map[string]string{"problem.pdf": "%PDF statement"}},
	}
	get := func(path, token string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, e.http.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	alice, admin := tokenOf(e.alice), tokenOf(e.admin)
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			put, err := e.admin.PutProblem(ctx, c.id, strings.NewReader(zipOf(c.files)))
			if err != nil {
				t.Fatalf("upload as it stands: %v", err)
			}
			if put.Title != c.title {
				t.Fatalf("title %q, want %q", put.Title, c.title)
			}
			for f := range c.public {
				if !slices.Contains(put.Statements, f) {
					t.Errorf("the upload's answer does not list %s as public: %q", f, put.Statements)
				}
			}
			for f := range c.private {
				if !slices.Contains(put.StatementsPrivate, f) || slices.Contains(put.Statements, f) {
					t.Errorf("the upload's answer does not list %s as private only: public %q, private %q", f, put.Statements, put.StatementsPrivate)
				}
			}
			seen, err := e.alice.Problem(ctx, c.id)
			if err != nil {
				t.Fatal(err)
			}
			if seen.StatementsPrivate != nil || !slices.Equal(seen.Statements, put.Statements) {
				t.Fatalf("a user sees statements %q, private %q: want the public list only", seen.Statements, seen.StatementsPrivate)
			}
			base := "/api/v1/problems/" + c.id + "/statement/"
			for f, want := range c.public {
				if code, body := get(base+f, alice); code != http.StatusOK || (want != "" && body != want) {
					t.Errorf("user GET %s: %d %q, want 200 %q", f, code, body, want)
				}
			}
			for f, want := range c.private {
				if code, body := get(base+f, alice); code != http.StatusNotFound || strings.Contains(body, "EDITORIAL") {
					t.Errorf("user GET %s: %d %q, want 404", f, code, body)
				}
				if code, body := get(base+f, admin); code != http.StatusOK || (want != "" && body != want) {
					t.Errorf("admin GET %s: %d %q, want 200 %q", f, code, body, want)
				}
			}
		})
	}
}
