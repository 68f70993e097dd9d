package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sumPackage writes a Kattis package without a time limit (it is derived at verify from
// its accepted submission) to a directory of the test's.
func sumPackage(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sum")
	files := map[string]string{
		"problem.yaml":                "problem_format_version: 2025-09\nname: Sum\nuuid: 1\n",
		"data/sample/1.in":            "1 2\n",
		"data/sample/1.ans":           "3\n",
		"data/secret/1.in":            "20 22\n",
		"data/secret/1.ans":           "42\n",
		"statement/problem.en.md":     "Add two numbers.\n",
		"submissions/accepted/sum.py": "a, b = map(int, input().split())\nprint(a + b)\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A package without a time limit is closed to users until verified; push --verify
// --wait uploads and verifies in one step, and the problem is open once it returns,
// with its derived limit shown.
func TestProblemPushVerifyOpensTheProblem(t *testing.T) {
	e := newEnv(t)
	dir := sumPackage(t)
	src := filepath.Join(t.TempDir(), "sum.py")
	if err := os.WriteFile(src, []byte("a, b = map(int, input().split())\nprint(a + b)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := e.ojctl("problem", "push", dir); r.code != 0 || !strings.Contains(r.stdout, "provisional") {
		t.Fatalf("push:\n%s", r)
	}
	user := e.exec(run{args: []string{"submit", src, "--problem", "sum", "--lang", "python3"}, token: &e.userToken})
	if user.code == 0 || !strings.Contains(user.stderr, "ojctl problem verify sum") {
		t.Fatalf("a user's submit to the provisional problem:\n%s", user)
	}

	r := e.ojctl("problem", "push", dir, "--verify", "--wait", "-o", "json")
	if r.code != 0 {
		t.Fatalf("push --verify --wait:\n%s", r)
	}
	var out pushVerified
	decode(t, r, &out)
	d := out.Problem.TimeLimitDerivation
	if out.Verification == nil || out.Verification.State != "passed" || out.Problem.Version != 2 || out.Problem.TimeLimitProvisional ||
		d == nil || d.State != "derived" || d.VerificationID != out.Verification.ID {
		t.Fatalf("push --verify --wait: %+v, derivation %+v", out, d)
	}
	if r := e.ojctl("problem", "show", "sum"); r.code != 0 || !strings.Contains(r.stdout, "Time limit derivation") ||
		!strings.Contains(r.stdout, "submissions/accepted/sum.py") {
		t.Errorf("problem show after verify:\n%s", r)
	}
	user = e.exec(run{args: []string{"submit", src, "--problem", "sum", "--lang", "python3"}, token: &e.userToken})
	if user.code != 0 {
		t.Fatalf("a user's submit after push --verify:\n%s", user)
	}
}
