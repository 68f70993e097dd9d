package problem

import (
	"path"
	"slices"
	"strings"
	"testing"
)

// TestStatementRefs: each kind of statement source names the files it brings in, and
// only relative paths to files of the package resolve.
func TestStatementRefs(t *testing.T) {
	files := []string{"s/fig.png", "s/notes.tex", "s/a.01", "s/a.01.a", "s/style.css", "s/bg.png", "s/p.png", "data/secret/1.in"}
	has := func(n string) bool { return slices.Contains(files, n) }
	cases := []struct {
		name, body string
		want       []string
	}{
		{"s/problem.en.tex", "\\includegraphics[width=3cm]{fig}\n% \\input{hidden}\n\\input{notes}\\exmpfile{a.01}{a.01.a}\n\\input{../data/secret/1.in}",
			[]string{"s/fig.png", "s/notes.tex", "s/a.01", "s/a.01.a", "data/secret/1.in"}},
		{"s/problem.sv.tex", "\\illustration{0.5}{p.png}{A caption}\n50\\% of \\includegraphics{https://x.org/y.png}", []string{"s/p.png"}},
		{"s/problem.en.md", "![alt](fig.png \"t\") and [notes](notes.tex) and [web](https://example.org) and <img src='p.png'>", []string{"s/fig.png", "s/notes.tex", "s/p.png"}},
		{"s/problem.html", `<link href="style.css"><img src="fig.png"><a href="#top">top</a><script src="/abs.js"></script>`, []string{"s/style.css", "s/fig.png"}},
		{"s/style.css", `body { background: url("bg.png") } p { background: url(p.png) }`, []string{"s/bg.png", "s/p.png"}},
		{"s/problem.pdf", "%PDF \\includegraphics{fig}", nil},
	}
	for _, c := range cases {
		var got []string
		for _, ref := range StatementRefs(c.name, []byte(c.body)) {
			if to := ResolveRef(c.name, ref, has); to != "" {
				got = append(got, to)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: resolved %q, want %q", c.name, got, c.want)
		}
	}
}

// FuzzStatementRefs: whatever a statement source holds, a reference resolves to a
// clean name inside the package or to nothing.
func FuzzStatementRefs(f *testing.F) {
	f.Add("problem.tex", "\\includegraphics{../../etc/passwd}\\input{a}")
	f.Add("problem.md", "![x](%2e%2e/secret) [y](a?b#c)")
	f.Add("problem.html", "<img src='a'><link href=\"file:///etc\">")
	f.Fuzz(func(t *testing.T, name, body string) {
		for _, ref := range StatementRefs(name, []byte(body)) {
			to := ResolveRef("s/"+path.Base(name), ref, func(string) bool { return true })
			if to == "" {
				continue
			}
			if path.Clean(to) != to || strings.HasPrefix(to, "../") || to == ".." || strings.HasPrefix(to, "/") {
				t.Fatalf("%q resolved to %q, outside the package or unclean", ref, to)
			}
		}
	})
}
