package polygon

import (
	"path"
	"slices"
	"strings"

	"oj/core/judge/problem"
)

// statementRoots are what a package that lists no statement is read for: each
// language's problem.tex, and the HTML and PDF Polygon builds from it.
var statementRoots = []string{"problem.tex", "problem.html", "problem.pdf"}

// statements puts the public statement material under statement/ — the statements
// problem.xml lists under <statements> and the files they reference (images, the
// stylesheet, olymp.sty's example files) — and the rest of statements/ and
// statement-sections/ under private/, for admins only: the tutorials (listed under
// <tutorials> or not), problem-properties.json (it holds the tutorial too) and the
// section sources. Polygon's hidden .html and .pdf folders lose their dot. A
// problem.pdf (.html, .txt) at the package's top is public too.
func (c *converter) statements() error {
	for _, f := range c.src.List("") {
		if problem.IsTopStatement(f) {
			// A DOMjudge-style statement at the top: public under its own name.
			if _, err := c.b.Copy(c.src, f, f, false); err != nil {
				return err
			}
			c.im.Map(f, f+" (a statement at the package's top, public)")
		}
	}
	if !c.src.IsDir("statements") && !c.src.IsDir("statement-sections") {
		c.im.Note("the package has no statements/: nothing is public but the samples")
		return nil
	}
	tutorials := map[string]bool{}
	for _, t := range c.x.Tutorials {
		tutorials[t.Path] = true
	}
	hidden := func(f string) bool {
		base := strings.ToLower(path.Base(f))
		return tutorials[f] || strings.HasPrefix(base, "tutorial") || base == "problem-properties.json"
	}
	allowed := func(f string) bool {
		t := c.src.Resolved(f)
		return strings.HasPrefix(f, "statements/") && strings.HasPrefix(t, "statements/") && !hidden(f) && !hidden(t)
	}
	var roots []string
	for _, st := range c.x.Statements {
		switch {
		case !c.src.Has(st.Path):
			c.im.Note("%s: a statement problem.xml lists, not in the package", st.Path)
		case !allowed(st.Path):
			c.im.Note("%s: listed as a statement, but it is editorial material: kept private", st.Path)
		default:
			roots = append(roots, st.Path)
		}
	}
	var all []string
	walk(c.src, "statements", &all)
	if len(c.x.Statements) == 0 {
		for _, f := range all {
			if slices.Contains(statementRoots, path.Base(f)) && allowed(f) {
				roots = append(roots, f)
			}
		}
		c.im.Note("problem.xml lists no statement: its problem.tex, problem.html and problem.pdf are taken as the statements")
	}
	public, refused := c.src.Referenced(roots, allowed)
	for _, f := range refused {
		c.im.Note("%s: referenced by a statement, but editorial material: kept private", f)
	}
	walk(c.src, "statement-sections", &all)
	nPublic, nPrivate := 0, 0
	for _, f := range all {
		rel := undot(strings.TrimPrefix(f, "statements/"))
		to := problem.PrivateDir + rel
		if slices.Contains(public, f) {
			to = problem.PublicDir + rel
			nPublic++
		} else {
			nPrivate++
		}
		if _, err := c.b.Copy(c.src, f, to, false); err != nil {
			return err
		}
	}
	if nPublic > 0 {
		c.im.Map("<statements> and the files they reference", problem.PublicDir)
	}
	if nPrivate > 0 {
		c.im.Map("the rest of statements/ and statement-sections/ (tutorials, problem-properties.json, section sources)", problem.PrivateDir+" (admins only)")
	}
	return nil
}

// undot drops the leading dot of each folder of a name (statements/.html/…).
func undot(name string) string {
	parts := strings.Split(name, "/")
	for i := range parts[:len(parts)-1] {
		parts[i] = strings.TrimPrefix(parts[i], ".")
	}
	return strings.Join(parts, "/")
}

// walk appends every file under dir, its hidden folders included, to out.
func walk(src *problem.Source, dir string, out *[]string) {
	*out = append(*out, src.List(dir)...)
	for _, d := range src.Dirs(dir) {
		walk(src, d, out)
	}
}

func (c *converter) rest() error {
	for _, d := range c.src.Dirs("") {
		switch path.Base(d) {
		case "tests", "statements", "statement-sections", "solutions":
		case "files":
			c.im.Note("files/: generators, validators and resources; the checker, interactor and headers are taken from it, the rest kept out")
		default:
			c.im.Note("%s/: not used by the judge, kept out", d)
		}
	}
	if len(c.x.Statements) == 0 {
		c.im.Note("problem.xml lists no statement")
	}
	return nil
}
