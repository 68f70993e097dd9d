package api

import "testing"

// TestStatementVisible: a user reads the public statement files only; an admin the
// private ones too; of a version recorded before the split (no statements_private),
// users are kept from the files named as editorials.
func TestStatementVisible(t *testing.T) {
	split := map[string]any{"statements": []any{"english/problem.tex"}, "statements_private": []any{"english/tutorial.tex"}}
	before := map[string]any{"statements": []any{"english/problem.tex", "english/tutorial.tex", "russian/problem-properties.json", "solution.pdf"}}
	cases := []struct {
		meta  map[string]any
		rel   string
		admin bool
		want  bool
	}{
		{split, "english/problem.tex", false, true},
		{split, "english/tutorial.tex", false, false},
		{split, "english/tutorial.tex", true, true},
		{split, "english/missing.tex", true, false},
		{before, "english/problem.tex", false, true},
		{before, "english/tutorial.tex", false, false},
		{before, "russian/problem-properties.json", false, false},
		{before, "solution.pdf", false, false},
		{before, "english/tutorial.tex", true, true},
	}
	for _, c := range cases {
		if got := statementVisible(c.meta, c.rel, c.admin); got != c.want {
			t.Errorf("%s (admin %v, split %v): visible %v, want %v", c.rel, c.admin, c.meta["statements_private"] != nil, got, c.want)
		}
	}
}
