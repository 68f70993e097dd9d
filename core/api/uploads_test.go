package api_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"oj/core/api/client"
	"oj/core/judge/problem/problemtest"
)

// Hostile uploads are refused by the real API with the rule they break, before any
// worker is asked for anything: a checker named like a compiler option, and a zip whose
// directory holds far more entries than its end record declares.
func TestHostileUploadsNameTheRule(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true})
	dash := problemtest.APlusB("title: A\nchecker:\n  type: testlib\n  source: -print-prog-name=x.cpp\n")
	dash["-print-prog-name=x.cpp"] = "int main() { return 0; }\n"
	cases := []struct {
		name string
		zip  []byte
		want string
	}{
		{"a checker named like a compiler option", problemtest.Zip(dash),
			`problem.yaml line 4: checker.source: "-print-prog-name=x.cpp" is not a plain file name`},
		// archive/zip compares only the low 16 bits of the count: 65,546 entries pass for 10.
		{"a directory that understates its entries", problemtest.DirZip{N: 65_546, NameLen: 7, Records: 10, Size: 530}.Bytes(),
			"too many files: the zip has more than 2000 entries, the limit (judge.package_limits.max_files)"},
	}
	for _, c := range cases {
		_, err := e.admin.PutProblem(context.Background(), "hostile", bytes.NewReader(c.zip))
		var ce *client.Error
		if !errors.As(err, &ce) || ce.Status != http.StatusBadRequest || ce.Code != "invalid_package" || !strings.Contains(ce.Message, c.want) {
			t.Errorf("%s: %v, want 400 invalid_package saying %q", c.name, err, c.want)
		}
	}
	if _, err := e.admin.Problem(context.Background(), "hostile"); client.StatusOf(err) != http.StatusNotFound {
		t.Fatalf("a refused upload created a version: %v", err)
	}
}
