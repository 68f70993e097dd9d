package formats

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"oj/core/judge/problem"
	"oj/core/judge/problem/problemtest"
)

// TestSharedPackages imports the real packages of ../shared/problems: each converts to
// a package oj's reader accepts, or is refused for what it is (hangman: multi-pass).
func TestSharedPackages(t *testing.T) {
	root := problemtest.SharedProblems()
	if root == "" {
		t.Skip("../shared/problems is absent (real Kattis and Polygon packages, kept beside the repository): nothing to import")
	}
	cases := []struct {
		dir, format, version string
		cases                int
		refused              string
		check                func(t *testing.T, im *Imported)
	}{
		{dir: "kattis/hello", format: Kattis, version: "legacy", cases: 1, check: func(t *testing.T, im *Imported) {
			s := im.Package.Spec
			if s.Title != "Hello World!" || !slices.ContainsFunc(im.Import.Mapped, func(m problem.Mapped) bool { return m.To == "name (sv): Hej Världen!" }) {
				t.Fatalf("title %q, mapped %+v: want each statement's name", s.Title, im.Import.Mapped)
			}
			if s.MemoryLimitMB != 512 || s.Checker.Type != "tokens" || s.Checker.IsCaseSensitive() || !s.Timing.Derive || len(s.Samples) != 0 {
				t.Fatalf("spec %+v", s)
			}
			wantLanguages(t, s.Submissions, map[string]string{"hello.kt": "kotlin", "hello.java": "java17", "hello_alarm.c": "c11", "hello.rs": "rust"})
		}},
		{dir: "kattis/different", format: Kattis, version: "legacy", cases: 3, check: func(t *testing.T, im *Imported) {
			s := im.Package.Spec
			if s.Checker.Type != "kattis" || s.Checker.Source != "validator/validate.cc" || s.Timing.TimeLimitToTLE != 4 || len(s.Samples) != 1 {
				t.Fatalf("spec %+v", s)
			}
			java := 0
			for _, sub := range s.Submissions {
				if sub.Language == "java17" {
					java++
				}
			}
			if java != 1 || len(s.Submissions) < 15 {
				t.Fatalf("submissions %+v", s.Submissions)
			}
			// Every source in a language oj runs has its id; the rest (Common Lisp,
			// Python 2, a Prolog folder) say why they are not run.
			wantLanguages(t, s.Submissions, map[string]string{
				"Different.scala": "scala", "different.cs": "csharp", "different.hs": "haskell", "different.js": "javascript",
				"different.ml": "ocaml", "different.php": "php", "different.rb": "ruby", "different.go": "go", "different.rs": "rust",
				"different.c": "c11", "different_py3.py": "python3", "different.lisp": "", "different_py2.py": "", "different.pl": "",
			})
		}},
		{dir: "kattis/guess", format: Kattis, version: "2023-07-draft", cases: 10, check: func(t *testing.T, im *Imported) {
			s := im.Package.Spec
			if !s.Interactive || !im.Package.Interactive() || s.Checker.Type != "kattis" || s.Timing.TimeLimitToTLE != 4 {
				t.Fatalf("spec %+v", s)
			}
		}},
		{dir: "kattis/oddecho", format: Kattis, version: "2023-07-draft", cases: 18, check: func(t *testing.T, im *Imported) {
			s := im.Package.Spec
			if s.Scoring == nil || s.Scoring.MaxScore() != 100 || len(s.Samples) != 2 {
				t.Fatalf("spec %+v", s)
			}
			// The Swedish Markdown statement shows cave.jpg.
			if public, _ := im.Package.StatementFiles(); public["cave.jpg"] == "" || public["problem.sv.md"] == "" || public["problem.en.tex"] == "" {
				t.Fatalf("public statement files %q", problem.Names(public))
			}
		}},
		{dir: "kattis/fltcmp", format: Kattis, version: "legacy", cases: 4, check: func(t *testing.T, im *Imported) {
			s := im.Package.Spec
			abs, rel := s.Checker.Tolerances()
			if s.Checker.Type != "float" || abs != 1e-6 || rel != 1e-6 || s.TimeLimitMS != 5000 {
				t.Fatalf("spec %+v", s)
			}
			wantLanguages(t, s.Submissions, map[string]string{"fltcmp-test-write-files-between-submissions.R": "r", "fltcmp-test-correct.c": "c11"})
			// DOMjudge links one R submission to the other; git checked the link out as a
			// file naming its target, which is read as the link.
			if !slices.ContainsFunc(im.Import.Notes, func(n string) bool {
				return strings.Contains(n, "between-submissions.R holds the path submissions/accepted/fltcmp-test-write-files-between-testcases.R")
			}) {
				t.Errorf("notes %q: want the link stub read as a link", im.Import.Notes)
			}
		}},
		{dir: "kattis/hangman", refused: "multi-pass"},
		{dir: "polygon/abs-problem-bfs", format: Polygon, cases: 63, check: func(t *testing.T, im *Imported) {
			s := im.Package.Spec
			if s.Checker.Type != "testlib" || s.TimeLimitMS != 1000 || s.MemoryLimitMB != 256 || len(s.Samples) != 3 || len(s.Submissions) != 4 {
				t.Fatalf("spec %+v", s)
			}
			// The listed statements and what they reference are public; the properties
			// file (it carries the tutorial's text in packages that have one) is not.
			public, private := im.Package.StatementFiles()
			for _, f := range []string{"russian/problem.tex", "russian/example.01", "html/russian/problem.html",
				"html/russian/problem-statement.css", "pdf/russian/problem.pdf"} {
				if _, ok := public[f]; !ok {
					t.Errorf("%s is not public: %q", f, problem.Names(public))
				}
			}
			if _, ok := private["russian/problem-properties.json"]; !ok {
				t.Errorf("problem-properties.json is not private: %q", problem.Names(private))
			}
		}},
		{dir: "polygon/smallest-amount", format: Polygon},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			body, err := problemtest.ZipDir(filepath.Join(root, c.dir))
			if err != nil {
				t.Fatal(err)
			}
			im, err := Import(body, "", problem.DefaultLimits())
			if c.refused != "" {
				if err == nil || !problem.IsInvalid(err) || !strings.Contains(err.Error(), c.refused) {
					t.Fatalf("err = %v, want a refusal naming %q", err, c.refused)
				}
				t.Logf("refused: %v", err)
				return
			}
			if err != nil {
				t.Fatalf("import: %v", err)
			}
			if im.Import.Format != c.format || (c.version != "" && im.Import.Version != c.version) {
				t.Fatalf("read as %s %s", im.Import.Format, im.Import.Version)
			}
			if c.cases > 0 && im.Package.CaseCount() != c.cases {
				t.Fatalf("%d cases, want %d", im.Package.CaseCount(), c.cases)
			}
			if c.check != nil {
				c.check(t, im)
			}
			for _, m := range im.Import.Mapped {
				t.Logf("  %s → %s", m.From, m.To)
			}
			for _, n := range im.Import.Notes {
				t.Logf("  note: %s", n)
			}
		})
	}
}

// wantLanguages checks the language of each named labeled source ("": not run, with a
// note saying why).
func wantLanguages(t *testing.T, subs []problem.LabeledSubmission, want map[string]string) {
	t.Helper()
	for name, lang := range want {
		i := slices.IndexFunc(subs, func(s problem.LabeledSubmission) bool { return path.Base(s.Source) == name })
		switch {
		case i < 0:
			t.Errorf("no labeled submission %s", name)
		case subs[i].Language != lang || (lang == "" && subs[i].Note == ""):
			t.Errorf("%s: language %q (%s), want %q", name, subs[i].Language, subs[i].Note, lang)
		}
	}
}
