package formats

import (
	"slices"
	"strings"
	"testing"

	"oj/core/judge/problem"
	"oj/core/judge/problem/problemtest"
)

// statementSets imports files and returns the package's public and private statement
// names.
func statementSets(t *testing.T, files map[string]string, id string) (*Imported, []string, []string) {
	t.Helper()
	im, err := ImportAs(problemtest.Zip(files), "", id, problem.DefaultLimits())
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	public, private := im.Package.StatementFiles()
	return im, problem.Names(public), problem.Names(private)
}

func mapped(im *Imported, to string) bool {
	for _, m := range im.Import.Mapped {
		if strings.Contains(m.To, to) {
			return true
		}
	}
	return false
}

func noted(im *Imported, text string) bool {
	return slices.ContainsFunc(im.Import.Notes, func(n string) bool { return strings.Contains(n, text) })
}

// TestLegacyKattisAsArchived: a legacy package without a name in problem.yaml and with
// generator scripts in data/ imports; its name is its statements' (plainproblemname over
// \problemname, per language), the scripts are ignored with a note, and only the
// statements and what they reference are public — never the solution slides, nor a
// link into data/secret, whatever inputs them.
func TestLegacyKattisAsArchived(t *testing.T) {
	im, public, private := statementSets(t, problemtest.LegacyKattisUnnamed(), "twice")
	if im.Import.Format != Kattis || im.Import.Version != "legacy" || im.Package.CaseCount() != 2 {
		t.Fatalf("read as %s %s with %d cases", im.Import.Format, im.Import.Version, im.Package.CaseCount())
	}
	if im.Package.Title() != "Twice the Number" || !mapped(im, "name (en): Twice the Number") || !mapped(im, "name (sv): Dubbla talet") {
		t.Fatalf("title %q, mapped %+v: want the statements' names", im.Package.Title(), im.Import.Mapped)
	}
	for _, f := range []string{"data/gen.sh", "data/generator.sh", "data/gen_random.py"} {
		if !noted(im, f+": not a test folder, ignored") {
			t.Errorf("no note says %s is ignored: %q", f, im.Import.Notes)
		}
	}
	wantPublic := []string{"figs/sv.png", "notes.tex", "problem.en.tex", "problem.sv.tex", "twice.png"}
	if !slices.Equal(public, wantPublic) {
		t.Fatalf("public %q, want %q", public, wantPublic)
	}
	wantPrivate := []string{"secret.in", "slides.tex", "solution-slides.tex", "solution.tex", "unused.png"}
	if !slices.Equal(private, wantPrivate) {
		t.Fatalf("private %q, want %q", private, wantPrivate)
	}
	if !noted(im, "problem_statement/solution.tex: referenced by the statement, but kept private") ||
		!noted(im, "problem_statement/secret.in: referenced by the statement, but kept private") {
		t.Fatalf("notes %q: want the refused references said", im.Import.Notes)
	}
}

// TestKattisNameFallback: a package that names itself nowhere is named after its
// folder, else the problem's id, and says so; problem.tex is English; a problem.yaml
// of comments only is a legacy package with every default.
func TestKattisNameFallback(t *testing.T) {
	files := problemtest.LegacyKattisUnnamed()
	delete(files, "problem_statement/problem.sv.tex")
	files["problem_statement/problem.en.tex"] = "No name here.\n"
	im, _, _ := statementSets(t, files, "twice-id")
	if im.Package.Title() != "twice-id" || !noted(im, `named "twice-id" after the problem's id`) {
		t.Fatalf("title %q, notes %q: want the id", im.Package.Title(), im.Import.Notes)
	}
	inFolder := map[string]string{}
	for n, c := range files {
		inFolder["ncpc-twice/"+n] = c
	}
	im, _, _ = statementSets(t, inFolder, "twice-id")
	if im.Package.Title() != "ncpc-twice" || !noted(im, "after the package's folder") {
		t.Fatalf("title %q, notes %q: want the folder", im.Package.Title(), im.Import.Notes)
	}
	delete(files, "problem_statement/problem.en.tex")
	files["problem_statement/problem.tex"] = "\\problemname{Plain Twice}\n"
	if im, _, _ = statementSets(t, files, ""); im.Package.Title() != "Plain Twice" || !mapped(im, "name (en): Plain Twice") {
		t.Fatalf("title %q: problem.tex is the English statement", im.Package.Title())
	}
	files["problem.yaml"] = "# every default\n"
	if im, _, _ = statementSets(t, files, ""); im.Package.Title() != "Plain Twice" || im.Import.Version != "legacy" {
		t.Fatalf("a problem.yaml of comments only: title %q, version %q", im.Package.Title(), im.Import.Version)
	}
	files["data/extra/1.in"] = "1\n"
	if _, err := Import(problemtest.Zip(files), "", problem.DefaultLimits()); err == nil || !strings.Contains(err.Error(), "data/extra/1.in") {
		t.Fatalf("a test case outside sample and secret: %v, want a refusal naming it", err)
	}
}

// TestPolygonTutorialsPrivate: of a Polygon package only what <statements> lists and
// the files those reference are public; every tutorial, problem-properties.json and the
// section sources are private, even one a statement links to.
func TestPolygonTutorialsPrivate(t *testing.T) {
	files := problemtest.PolygonWithTutorials()
	files["twice/problem.pdf"] = "%PDF at the top"
	im, public, private := statementSets(t, files, "twice")
	wantPublic := []string{"english/example.01", "english/example.01.a", "english/problem.tex", "english/twice.png",
		"html/english/paper.png", "html/english/problem-statement.css", "html/english/problem.html", "html/english/twice.png",
		"pdf/english/problem.pdf", "problem.pdf"}
	if !slices.Equal(public, wantPublic) {
		t.Fatalf("public %q, want %q", public, wantPublic)
	}
	for _, f := range []string{"english/tutorial.tex", "html/english/tutorial.html", "pdf/english/tutorial.pdf",
		"english/problem-properties.json", "english/tutorial-figure.png", "english/legend.tex",
		"statement-sections/english/tutorial.tex"} {
		if !slices.Contains(private, f) {
			t.Errorf("%s is not among the private files %q", f, private)
		}
	}
	if !noted(im, "statements/.html/english/tutorial.html: referenced by a statement, but editorial material") {
		t.Fatalf("notes %q: want the link to the tutorial said", im.Import.Notes)
	}
}

// TestDOMjudgeProblemPDF: a problem.pdf at the package's top is its public statement,
// in a Kattis package and in oj's own.
func TestDOMjudgeProblemPDF(t *testing.T) {
	im, public, _ := statementSets(t, problemtest.DOMjudgeStyle(), "twice")
	if !slices.Equal(public, []string{"problem.pdf"}) || !mapped(im, "DOMjudge style") {
		t.Fatalf("public %q, mapped %+v: want problem.pdf", public, im.Import.Mapped)
	}
	own := problemtest.APlusB("title: A+B\n")
	own["problem.pdf"] = "%PDF"
	own["statement/problem.en.md"] = "Add.\n"
	own["private/solution.md"] = "EDITORIAL"
	_, public, private := statementSets(t, own, "aplusb")
	if !slices.Equal(public, []string{"problem.en.md", "problem.pdf"}) || !slices.Equal(private, []string{"solution.md"}) {
		t.Fatalf("oj package: public %q, private %q", public, private)
	}
}
