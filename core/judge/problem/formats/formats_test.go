package formats

import (
	"archive/zip"
	"bytes"
	"errors"
	"io/fs"
	"sort"
	"strings"
	"testing"

	"oj/core/judge/problem"
	"oj/core/judge/problem/problemtest"
)

// zipWith zips files and symlinks (name → target), in name order.
func zipWith(t *testing.T, files map[string]string, links map[string]string) []byte {
	t.Helper()
	return zipLinks(files, links)
}

func zipLinks(files map[string]string, links map[string]string) []byte {
	var names []string
	for n := range files {
		names = append(names, n)
	}
	for n := range links {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		hdr := &zip.FileHeader{Name: n, Method: zip.Deflate}
		content, isLink := links[n]
		if isLink {
			hdr.SetMode(fs.ModeSymlink | 0o777)
		} else {
			content = files[n]
			hdr.SetMode(0o644)
		}
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			panic(err)
		}
		w.Write([]byte(content))
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// legacyKattis is a small legacy Kattis scoring package of our own: two groups, one of
// whose tests links to a sample, a Python validator that writes a score.
func legacyKattis() (map[string]string, map[string]string) {
	files := map[string]string{
		"problem.yaml":                             "name: Echo sum\ntype: scoring\nvalidation: custom score\nlimits:\n  time_limit: 2\n  memory: 128\n",
		"data/testdata.yaml":                       "on_reject: continue\ngrader_flags: ignore_sample\nrange: 0 100\n",
		"data/sample/1.in":                         "1 2\n",
		"data/sample/1.ans":                        "3\n",
		"data/secret/testdata.yaml":                "on_reject: continue\ngrader_flags: first_error accept_if_any_accepted\n",
		"data/secret/g1/testdata.yaml":             "on_reject: break\ngrader_flags: min\naccept_score: 40\nrange: 0 40\n",
		"data/secret/g1/a.ans":                     "3\n",
		"data/secret/g2/testdata.yaml":             "on_reject: break\ngrader_flags: min\naccept_score: 60\nrange: 0 60\n",
		"data/secret/g2/b.in":                      "100 200\n",
		"data/secret/g2/b.ans":                     "300\n",
		"output_validators/v/validate.py":          "import sys\nsys.exit(42)\n",
		"submissions/accepted/sum.py":              "a, b = map(int, input().split())\nprint(a + b)\n",
		"submissions/partially_accepted/small.cpp": "int main() {}\n",
		"submissions/wrong_answer/Wrong.java":      "public class Wrong { public static void main(String[] a) {} }\n",
		"problem_statement/problem.en.tex":         "\\problemname{Echo sum}\n",
		"input_validators/check.py":                "import sys\nsys.exit(42)\n",
	}
	links := map[string]string{"data/secret/g1/a.in": "../../sample/1.in"}
	return files, links
}

// v2025Kattis is a small 2025-09 package of our own: test_group.yaml groups, a C++
// validator folder, a Markdown statement.
func v2025Kattis() map[string]string {
	return map[string]string{
		"problem.yaml":                   "problem_format_version: 2025-09\nname: Twice\nuuid: 1\ntype: scoring\nlimits:\n  time_multipliers: {ac_to_time_limit: 3}\n",
		"data/sample/1.in":               "2\n",
		"data/sample/1.ans":              "4\n",
		"data/secret/test_group.yaml":    "max_score: 100\n",
		"data/secret/a/test_group.yaml":  "max_score: 30\n",
		"data/secret/a/1.in":             "1\n",
		"data/secret/a/1.ans":            "2\n",
		"data/secret/b/test_group.yaml":  "max_score: 70\nscore_aggregation: sum\n",
		"data/secret/b/1.in":             "5\n",
		"data/secret/b/1.ans":            "10\n",
		"data/secret/b/2.in":             "6\n",
		"data/secret/b/2.ans":            "12\n",
		"output_validator/validate.cpp":  "#include \"v.h\"\nint main() { return 42; }\n",
		"output_validator/v.h":           "#pragma once\n",
		"statement/problem.en.md":        "Print twice the number.\n",
		"submissions/accepted/twice.cpp": "int main() {}\n",
	}
}

func TestKattisLegacyFixture(t *testing.T) {
	files, links := legacyKattis()
	im, err := Import(zipWith(t, files, links), "", problem.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	s := im.Package.Spec
	if im.Import.Format != Kattis || im.Import.Version != "legacy" || im.Package.CaseCount() != 3 || s.TimeLimitMS != 2000 ||
		s.MemoryLimitMB != 128 || s.Checker.Type != "kattis" || s.Checker.Source != "validator/validate.py" || s.Timing.Derive {
		t.Fatalf("import %+v, spec %+v", im.Import, s)
	}
	root := s.Scoring
	if root == nil || len(root.Groups) != 2 || !root.Groups[0].Ignore || root.Groups[1].Name != "secret" ||
		!root.Groups[1].AcceptIfAnyAccepted || root.Groups[1].Groups[0].Aggregate != "min" || *root.Groups[1].Groups[1].AcceptScore != 60 {
		t.Fatalf("scoring %+v", root)
	}
	if root.MaxScore() != 100 {
		t.Fatalf("max score %v", root.MaxScore())
	}
	// The linked test is the sample's content, stored as a file of its own.
	zr, _ := zip.NewReader(bytes.NewReader(im.Zip), int64(len(im.Zip)))
	for _, f := range zr.File {
		if f.Name == "tests/2.in" {
			rc, _ := f.Open()
			var b bytes.Buffer
			b.ReadFrom(rc)
			if b.String() != "1 2\n" || f.Mode()&fs.ModeSymlink != 0 {
				t.Fatalf("tests/2.in: %q mode %v", b.String(), f.Mode())
			}
		}
	}
	want := map[string][]string{"submissions/accepted/sum.py": {"AC"}, "submissions/partially_accepted/small.cpp": {"PC"}, "submissions/wrong_answer/Wrong.java": {"WA"}}
	for _, sub := range s.Submissions {
		if strings.Join(sub.Expect, ",") != strings.Join(want[sub.Source], ",") || sub.Language == "" {
			t.Fatalf("submission %+v", sub)
		}
	}
	found := false
	for _, m := range im.Import.Mapped {
		found = found || strings.Contains(m.From, "a link to data/sample/1.in")
	}
	if !found {
		t.Fatalf("the link is not in the mapping: %+v", im.Import.Mapped)
	}
	// The same link as git checks it out without symlinks: a file holding its target.
	files["data/secret/g1/a.in"] = "../../sample/1.in"
	im, err = Import(problemtest.Zip(files), "", problem.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	b, err := im.Package.ReadFile("tests/2.in", 1<<10)
	if err != nil || string(b) != "1 2\n" {
		t.Fatalf("a link stub: tests/2.in = %q %v", b, err)
	}
}

func TestKattis2025Fixture(t *testing.T) {
	im, err := Import(problemtest.Zip(v2025Kattis()), "kattis", problem.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	s := im.Package.Spec
	if im.Import.Version != "2025-09" || s.Checker.Source != "validator/validate.cpp" || !s.Timing.Derive || s.Timing.ACToTimeLimit != 3 {
		t.Fatalf("spec %+v", s)
	}
	secret := s.Scoring.Groups[1]
	if secret.Name != "secret" || secret.Groups[0].Aggregate != "pass_fail" || secret.Groups[0].Range[1] != 30 ||
		secret.Groups[1].Aggregate != "sum" || *secret.Groups[1].AcceptScore != 35 || s.Scoring.MaxScore() != 100 || !s.Scoring.Groups[0].Ignore {
		t.Fatalf("scoring %+v", s.Scoring)
	}
}

// TestKattisInteractiveFixture: an interactive Kattis package's validator is the
// interactor, and the version says it is interactive (verify reads that: a case the
// validator rejected stays WA however long the solution ran on after).
func TestKattisInteractiveFixture(t *testing.T) {
	im, err := Import(problemtest.Zip(map[string]string{
		"problem.yaml":               "problem_format_version: 2025-09\nname: Guess\nuuid: x\ntype: interactive\n",
		"data/sample/1.in":           "7\n",
		"data/sample/1.ans":          "7\n",
		"data/secret/1.in":           "42\n",
		"data/secret/1.ans":          "42\n",
		"output_validator/guess.cpp": "int main() { return 42; }\n",
	}), "", problem.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	s := im.Package.Spec
	if im.Import.Format != "kattis" || !s.Interactive || s.Checker.Type != problem.CheckerKattis || !im.Package.Interactive() {
		t.Fatalf("spec %+v, interactive %v", s, im.Package.Interactive())
	}
}

// TestPolygonFixture: a Polygon package of our own with CRLF tests, points in groups,
// and one whose generated test is missing.
func TestPolygonFixture(t *testing.T) {
	xml := `<?xml version="1.0" encoding="utf-8"?>
<problem revision="2" short-name="twice">
  <names><name language="english" value="Twice"/></names>
  <judging input-file="" output-file="">
    <testset name="tests">
      <time-limit>2000</time-limit><memory-limit>67108864</memory-limit><test-count>3</test-count>
      <input-path-pattern>tests/%02d</input-path-pattern><answer-path-pattern>tests/%02d.a</answer-path-pattern>
      <tests><test method="manual" sample="true" points="0" group="samples"/><test method="manual" points="40" group="g1"/><test method="generated" cmd="gen 3" points="60" group="g2"/></tests>
      <groups><group name="samples" points-policy="each-test"/><group name="g1" points-policy="complete-group"/><group name="g2" points-policy="complete-group"/></groups>
    </testset>
  </judging>
  <files><resources><file path="files/testlib.h" type="h.g++"/></resources></files>
  <assets>
    <checker name="std::wcmp.cpp" type="testlib"><source path="files/check.cpp" type="cpp.g++17"/></checker>
    <solutions><solution tag="main"><source path="solutions/ok.cpp" type="cpp.g++17"/></solution>
    <solution tag="wrong-answer"><source path="solutions/Wa.java" type="java11"/></solution></solutions>
  </assets>
</problem>
`
	files := map[string]string{
		"twice/problem.xml":       strings.ReplaceAll(xml, "\n", "\r\n"),
		"twice/tests/01":          "1\r\n",
		"twice/tests/01.a":        "2\r\n",
		"twice/tests/02":          "5\r\n",
		"twice/tests/02.a":        "10\r\n",
		"twice/tests/03":          "6\n",
		"twice/tests/03.a":        "12\n",
		"twice/files/check.cpp":   "#include \"testlib.h\"\nint main() {}\n",
		"twice/files/testlib.h":   "#pragma once\n",
		"twice/solutions/ok.cpp":  "int main() {}\n",
		"twice/solutions/Wa.java": "public class Wa { public static void main(String[] a) {} }\n",
	}
	im, err := Import(problemtest.Zip(files), "", problem.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	s := im.Package.Spec
	if im.Import.Format != Polygon || s.TimeLimitMS != 2000 || s.MemoryLimitMB != 64 || s.Checker.Type != "testlib" || len(s.Samples) != 1 ||
		s.Scoring == nil || s.Scoring.MaxScore() != 100 || len(s.Submissions) != 2 || s.Submissions[1].Language != "java17" {
		t.Fatalf("spec %+v scoring %+v", s, s.Scoring)
	}
	zr, _ := zip.NewReader(bytes.NewReader(im.Zip), int64(len(im.Zip)))
	for _, f := range zr.File {
		if f.Name == "tests/1.in" {
			rc, _ := f.Open()
			var b bytes.Buffer
			b.ReadFrom(rc)
			if b.String() != "1\n" {
				t.Fatalf("tests/1.in kept its CRLF: %q", b.String())
			}
		}
	}
	delete(files, "twice/tests/03")
	_, err = Import(problemtest.Zip(files), "", problem.DefaultLimits())
	if !errors.Is(err, problem.ErrMissingFile) || !strings.Contains(err.Error(), `"tests/03"`) || !strings.Contains(err.Error(), "export a full package") || !strings.Contains(err.Error(), "gen 3") {
		t.Fatalf("missing generated test: %v", err)
	}
}

// TestRefusedPackages: hostile packages and features oj cannot honour are a 400 that
// names the file and the reason.
func TestRefusedPackages(t *testing.T) {
	base, baseLinks := legacyKattis()
	with := func(extra map[string]string, drop ...string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for _, d := range drop {
			delete(out, d)
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	links := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range baseLinks {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	cases := []struct {
		name   string
		files  map[string]string
		links  map[string]string
		reason error
		want   string
	}{
		{"a link out of the package", base, links(map[string]string{"data/secret/g1/a.in": "../../../../etc/passwd"}), problem.ErrSymlink, "outside the package"},
		{"an absolute link", base, links(map[string]string{"data/secret/g1/a.in": "/etc/passwd"}), problem.ErrSymlink, "only relative links"},
		{"a loop of links", base, links(map[string]string{"data/secret/g1/a.in": "x.in", "data/secret/g1/x.in": "a.in"}), problem.ErrSymlink, "a loop"},
		{"a link to a folder", base, links(map[string]string{"data/secret/g1/a.in": "../g2"}), problem.ErrSymlink, "folder"},
		{"a link to nothing", base, links(map[string]string{"data/secret/g1/a.in": "../g2/none.in"}), problem.ErrSymlink, "does not hold"},
		{"multi-pass", with(map[string]string{"problem.yaml": "name: X\nvalidation: custom multi-pass\n"}), baseLinks, problem.ErrUnsupported, "multi-pass"},
		{"custom without a validator", with(nil, "output_validators/v/validate.py"), baseLinks, problem.ErrUnsupported, "no output validator"},
		{"several validators", with(map[string]string{"output_validators/w/check.py": "x"}), baseLinks, problem.ErrUnsupported, "several output validators"},
		{"a validator of two sources", with(map[string]string{"output_validators/v/more.py": "x"}), baseLinks, problem.ErrUnsupported, "several source files"},
		{"build scripts", with(map[string]string{"output_validators/v/build": "#!/bin/sh\n"}), baseLinks, problem.ErrUnsupported, "build and run scripts"},
		{"include", with(map[string]string{"include/cpp/main.cpp": "x"}), baseLinks, problem.ErrUnsupported, "include"},
		{"custom grader", with(map[string]string{"data/secret/testdata.yaml": "grading: custom\n"}), baseLinks, problem.ErrUnsupported, "custom grader"},
		{"graders folder", with(map[string]string{"graders/g.py": "x"}), baseLinks, problem.ErrUnsupported, "custom graders"},
		{"per-group validator flags", with(map[string]string{"data/secret/g2/testdata.yaml": "output_validator_flags: strict\n"}), baseLinks, problem.ErrUnsupported, "differ between test groups"},
		{"an answer without input", with(map[string]string{"data/secret/g2/c.ans": "1\n"}), baseLinks, problem.ErrBadYAML, "without its input"},
		{"unknown problem.yaml key", with(map[string]string{"problem.yaml": "name: X\nfrobnicate: 1\n"}), baseLinks, problem.ErrBadYAML, `unknown key "frobnicate"`},
		{"a language code the format lacks", with(map[string]string{"problem.yaml": "name: X\nlanguages: cpp klingon\nvalidation: custom\n"}), baseLinks, problem.ErrBadYAML, `languages: "klingon" is not a language code of the Kattis format`},
		{"languages oj runs none of", with(map[string]string{"problem.yaml": "name: X\nlanguages: [prolog, lisp]\nvalidation: custom\n"}), baseLinks, problem.ErrUnsupported, "none of these is a language oj runs"},
		{"a default validator flag oj lacks", with(map[string]string{"problem.yaml": "name: X\nvalidator_flags: magic\n"}, "output_validators/v/validate.py"), baseLinks, problem.ErrUnsupported, `"magic"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Import(zipWith(t, c.files, c.links), "", problem.DefaultLimits())
			if !errors.Is(err, c.reason) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %v saying %q", err, c.reason, c.want)
			}
		})
	}
	// 2025-09 refusals.
	for name, extra := range map[string]map[string]string{
		"require_pass":      {"data/secret/b/test_group.yaml": "max_score: 70\nrequire_pass: sample\n"},
		"submission args":   {"data/secret/a/1.yaml": "args: [x]\n"},
		"static validation": {"data/secret/test_group.yaml": "static_validation_score: 10\n"},
		"input files":       {"data/secret/a/1.files/x": "y"},
		"submit-answer":     {"problem.yaml": "problem_format_version: 2025-09\nname: T\nuuid: 1\ntype: submit-answer\n"},
	} {
		t.Run(name, func(t *testing.T) {
			files := v2025Kattis()
			for k, v := range extra {
				files[k] = v
			}
			if _, err := Import(problemtest.Zip(files), "", problem.DefaultLimits()); !errors.Is(err, problem.ErrUnsupported) {
				t.Fatalf("err = %v, want a refusal", err)
			}
		})
	}
}

func TestForcedFormat(t *testing.T) {
	oj := problemtest.Zip(problemtest.APlusB("title: A+B\n"))
	if im, err := Import(oj, "", problem.DefaultLimits()); err != nil || im.Import.Format != OJ || !bytes.Equal(im.Zip, oj) {
		t.Fatalf("oj package: %v", err)
	}
	if _, err := Import(oj, "polygon", problem.DefaultLimits()); !errors.Is(err, problem.ErrMissingFile) {
		t.Fatalf("oj package forced as polygon: %v", err)
	}
	if _, err := Import(oj, "domjudge", problem.DefaultLimits()); !errors.Is(err, ErrUnknownFormat) {
		t.Fatalf("unknown format: %v", err)
	}
	files, links := legacyKattis()
	if _, err := Import(zipWith(t, files, links), "oj", problem.DefaultLimits()); !errors.Is(err, problem.ErrSymlink) {
		t.Fatalf("a Kattis package forced as oj's: %v", err)
	}
}

func FuzzImport(f *testing.F) {
	files, links := legacyKattis()
	f.Add(zipLinks(files, links))
	f.Add(problemtest.Zip(v2025Kattis()))
	f.Add(problemtest.Zip(problemtest.APlusB("title: A+B\n")))
	lim := problem.DefaultLimits()
	lim.MaxTotalBytes, lim.MaxFileBytes = 1<<20, 1<<20
	f.Fuzz(func(t *testing.T, b []byte) {
		im, err := Import(b, "", lim)
		if err != nil {
			if im != nil {
				t.Fatal("imported with an error")
			}
			return
		}
		if im.Package == nil || im.Package.CaseCount() < 1 {
			t.Fatalf("accepted an incomplete package")
		}
		if _, err := problem.ReadBytes(im.Zip, lim); err != nil {
			t.Fatalf("the stored package does not read: %v", err)
		}
	})
}
