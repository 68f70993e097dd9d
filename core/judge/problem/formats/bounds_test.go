package formats

import (
	"errors"
	"strings"
	"testing"

	"oj/core/judge/problem"
	"oj/core/judge/problem/problemtest"
)

// TestScoresPastTheBoundAreRefused: a package's score oj could not keep — NaN, ±Inf,
// past job.MaxScore — is a 400 naming the file and the key, in each format.
func TestScoresPastTheBoundAreRefused(t *testing.T) {
	legacy, links := legacyKattis()
	for name, c := range map[string]struct{ file, content, want string }{
		"accept_score 1e308":  {"data/secret/g1/testdata.yaml", "accept_score: 1e308\n", `"data/secret/g1/testdata.yaml": accept_score: 1e+308 is not a finite number`},
		"accept_score .inf":   {"data/secret/g1/testdata.yaml", "accept_score: .inf\n", `"data/secret/g1/testdata.yaml": accept_score: +Inf is not a finite number`},
		"reject_score NaN":    {"data/secret/g2/testdata.yaml", "reject_score: .nan\n", `"data/secret/g2/testdata.yaml": reject_score: NaN is not a finite number`},
		"range end past it":   {"data/secret/g2/testdata.yaml", "range: 0 1e10\n", `"data/secret/g2/testdata.yaml": range: 1e+10 is not a finite number`},
		"range end NaN":       {"data/secret/g2/testdata.yaml", "range: 0 nan\n", `"data/secret/g2/testdata.yaml": range: NaN is not a finite number`},
		"2025 max_score 1e12": {"data/secret/b/test_group.yaml", "max_score: 1e12\n", `"data/secret/b/test_group.yaml": max_score: 1e+12 is not a finite number`},
	} {
		t.Run(name, func(t *testing.T) {
			var z []byte
			if strings.HasSuffix(c.file, "test_group.yaml") {
				files := v2025Kattis()
				files[c.file] = c.content
				z = problemtest.Zip(files)
			} else {
				files := map[string]string{}
				for k, v := range legacy {
					files[k] = v
				}
				files[c.file] = c.content
				z = zipWith(t, files, links)
			}
			_, err := Import(z, "", problem.DefaultLimits())
			if !errors.Is(err, problem.ErrBadYAML) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one saying %q", err, c.want)
			}
		})
	}
	// A range with an infinite end is the format's default, unbounded on that side.
	files := map[string]string{}
	for k, v := range legacy {
		files[k] = v
	}
	files["data/secret/testdata.yaml"] += "range: -inf inf\n"
	if _, err := Import(zipWith(t, files, links), "", problem.DefaultLimits()); err != nil {
		t.Fatalf("range: -inf inf: %v", err)
	}
	for _, points := range []string{"1e308", "NaN", "Infinity", "1000000001"} {
		t.Run("polygon points "+points, func(t *testing.T) {
			files := polygonPackage(points)
			_, err := Import(problemtest.Zip(files), "", problem.DefaultLimits())
			want := `"problem.xml": test 2: points "` + points + `": not a finite number within 1e+09`
			if !errors.Is(err, problem.ErrBadYAML) || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v, want one saying %q", err, want)
			}
		})
	}
	if _, err := Import(problemtest.Zip(polygonPackage("1000000000")), "", problem.DefaultLimits()); err != nil {
		t.Fatalf("points at the bound: %v", err)
	}
}

// polygonPackage is a small Polygon package whose second test is worth points.
func polygonPackage(points string) map[string]string {
	xml := `<?xml version="1.0" encoding="utf-8"?>
<problem revision="1" short-name="pts">
  <names><name language="english" value="Points"/></names>
  <judging input-file="" output-file="">
    <testset name="tests">
      <time-limit>1000</time-limit><memory-limit>67108864</memory-limit><test-count>2</test-count>
      <input-path-pattern>tests/%02d</input-path-pattern><answer-path-pattern>tests/%02d.a</answer-path-pattern>
      <tests><test method="manual" points="0"/><test method="manual" points="` + points + `"/></tests>
    </testset>
  </judging>
  <files><resources><file path="files/testlib.h" type="h.g++"/></resources></files>
  <assets>
    <checker name="std::wcmp.cpp" type="testlib"><source path="files/check.cpp" type="cpp.g++17"/></checker>
  </assets>
</problem>
`
	return map[string]string{
		"pts/problem.xml":     xml,
		"pts/tests/01":        "1\n",
		"pts/tests/01.a":      "2\n",
		"pts/tests/02":        "5\n",
		"pts/tests/02.a":      "10\n",
		"pts/files/check.cpp": "#include \"testlib.h\"\nint main() {}\n",
		"pts/files/testlib.h": "#pragma once\n",
	}
}
