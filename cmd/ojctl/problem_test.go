package main

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"oj/core/judge/problem/problemtest"
	"oj/core/wire"
)

// writeTree writes files (slash paths) under a new directory named name.
func writeTree(t *testing.T, name string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// problem push zips a directory (the id is its name), uploads a zip under --id, shows
// upload progress on a terminal, and prints the server's reason for a bad package.
func TestProblemPush(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	files := problemtest.APlusB("title: Sum\ntime_limit_ms: 2000\n")

	dir := writeTree(t, "sum", files)
	r := e.ojctl("problem", "push", dir, "-o", "json")
	wantCode(t, r, 0)
	var p wire.Problem
	decode(t, r, &p)
	if p.ID != "sum" || p.Title != "Sum" || p.CaseCount != 3 || p.Version != 1 || p.TimeLimitMS != 2000 {
		t.Fatalf("pushed problem = %+v", p)
	}

	zipPath := filepath.Join(t.TempDir(), "sum-v2.zip")
	if err := os.WriteFile(zipPath, problemtest.Zip(files), 0o644); err != nil {
		t.Fatal(err)
	}
	r = e.exec(run{args: []string{"problem", "push", zipPath, "--id", "sum"}, tty: true})
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "Version:", "2")
	wantIn(t, "stderr (progress)", r.stderr, "uploading sum:", "(100%)")
	if got, err := e.admin.Problem(t.Context(), "sum"); err != nil || got.Version != 2 {
		t.Fatalf("after the zip push: %+v %v", got, err)
	}

	bad := writeTree(t, "broken", map[string]string{"problem.yaml": "title: Broken\n"})
	r = e.ojctl("problem", "push", bad)
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, e.url, "HTTP 400")
	if _, err := e.admin.Problem(t.Context(), "broken"); err == nil {
		t.Fatal("a refused package was stored")
	}

	user := e.userToken
	r = e.exec(run{args: []string{"problem", "push", dir}, token: &user})
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, "HTTP 403", "admin token")
}

// zipDir keeps relative slash paths and refuses symlinks.
func TestZipDirPacksRelativePathsAndRefusesSymlinks(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, "p", map[string]string{"problem.yaml": "title: x\n", "tests/1.in": "1\n", "tests/1.out": "1\n"})
	b, err := zipDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range zr.File {
		got[f.Name] = true
	}
	for _, want := range []string{"problem.yaml", "tests/1.in", "tests/1.out"} {
		if !got[want] || len(got) != 3 {
			t.Fatalf("zip holds %v, want %s among exactly 3", got, want)
		}
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "tests", "2.in")); err != nil {
		t.Fatal(err)
	}
	if _, err := zipDir(dir); err == nil {
		t.Fatal("a symlink was zipped")
	}
	if id := defaultProblemID("/x/aplusb.zip", false); id != "aplusb" {
		t.Fatalf("id of a zip = %q", id)
	}
}

// problem push of a package as a contest archive ships it prints what of its statement
// material became public and what stayed private (solution slides).
func TestProblemPushPrintsPublicAndPrivate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := writeTree(t, "twice", problemtest.LegacyKattisUnnamed())
	r := e.ojctl("problem", "push", dir)
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "Twice the Number", "Public statement files", "problem.en.tex", "twice.png",
		"Private statement files, admins only", "solution.tex", "solution-slides.tex")
}
