package problem

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"oj/core/judge/problem/problemtest"
)

// inFolder puts a valid A+B package's files under folder/ and adds extra entries as they
// are (a name ending in '/' is a directory entry, as zip -r writes them).
func inFolder(t *testing.T, folder string, extra ...string) []byte {
	t.Helper()
	names := []string{folder + "/", folder + "/tests/"}
	contents := map[string]string{}
	for n, c := range problemtest.APlusB(aplusbYAML) {
		names = append(names, folder+"/"+n)
		contents[folder+"/"+n] = c
	}
	slices.Sort(names[2:])
	return orderedZipOf(t, append(names, extra...), contents)
}

// TestPackageInOneTopFolder: zipping the package's folder instead of its content gives
// a zip whose entries all sit in one folder; it is the same package, on upload, when a
// worker extracts it and when the worker reopens its cache.
func TestPackageInOneTopFolder(t *testing.T) {
	b := inFolder(t, "aplusb", "__MACOSX/", "__MACOSX/aplusb/._problem.yaml", ".DS_Store", "aplusb/.DS_Store")
	p, err := ReadBytes(b, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"problem.yaml", "tests/1.in", "tests/1.out", "tests/2.in", "tests/2.out", "tests/3.in", "tests/3.out"}
	if got := sortedFiles(p); !slices.Equal(got, want) || p.CaseCount() != 3 {
		t.Fatalf("files %v (%d cases), want %v", got, p.CaseCount(), want)
	}
	dir := t.TempDir()
	if err := p.Extract(dir); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "tests", "2.in")); err != nil || string(b) != "10 20\n" {
		t.Fatalf("tests/2.in extracted as %q (%v)", b, err)
	}
	for _, n := range []string{"aplusb", "__MACOSX", ".DS_Store"} {
		if _, err := os.Lstat(filepath.Join(dir, n)); !os.IsNotExist(err) {
			t.Fatalf("%s extracted (%v)", n, err)
		}
	}
	q, err := OpenDir(dir, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sortedFiles(q), want) || q.Title() != p.Title() {
		t.Fatalf("reopened %v", sortedFiles(q))
	}
}

// TestUnclearLayoutsSayWhatWasFound: a zip that is not one package at its top or in one
// folder is refused with what it holds.
func TestUnclearLayoutsSayWhatWasFound(t *testing.T) {
	two := map[string]string{}
	for n, c := range problemtest.APlusB(aplusbYAML) {
		two["a/"+n], two["b/"+n] = c, c
	}
	noYAML := map[string]string{"p/tests/1.in": "1\n", "p/tests/1.out": "1\n"}
	cases := []struct {
		name   string
		zip    []byte
		reason error
		want   string
	}{
		{"problem.yaml at the top and in a folder", withExtra(map[string]string{"old/problem.yaml": aplusbYAML}), ErrLayout,
			`unclear package layout "problem.yaml": is both at the top level and in old/: zip one package, with its problem.yaml at the top or in a single folder`},
		{"several packages", problemtest.Zip(two), ErrLayout,
			"unclear package layout: the zip holds several packages (problem.yaml in a/, b/): upload one package per problem"},
		{"a folder with a file beside it", inFolder(t, "aplusb", "README.txt"), ErrLayout,
			`unclear package layout "problem.yaml": is in aplusb/, but the zip holds more than that folder (folders aplusb/ and files README.txt): zip the folder alone or the package's content`},
		{"a folder without problem.yaml", problemtest.Zip(noYAML), ErrMissingFile,
			`missing file "problem.yaml": the package has no problem.yaml at the top level or in p/; the zip holds folders p/`},
		{"two levels of folders", problemtest.Zip(map[string]string{"x/aplusb/problem.yaml": aplusbYAML}), ErrMissingFile,
			`missing file "problem.yaml": the package has no problem.yaml at the top level or in x/; the zip holds folders x/`},
		{"folders and files without problem.yaml", problemtest.Zip(map[string]string{"a/1": "", "b/2": "", "notes.txt": "", "__MACOSX/x": ""}), ErrMissingFile,
			`missing file "problem.yaml": the package has no problem.yaml at the top level; the zip holds folders a/, b/ and files notes.txt`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadBytes(c.zip, DefaultLimits())
			if !errors.Is(err, c.reason) || !IsInvalid(err) {
				t.Fatalf("err = %v, want %v", err, c.reason)
			}
			if err.Error() != c.want {
				t.Fatalf("message\n got %s\nwant %s", err, c.want)
			}
		})
	}
}

// TestTopFolderStillChecksPaths: the folder is stripped only after every entry's path
// was checked, and what is inside it follows the same rules as a package at the top.
func TestTopFolderStillChecksPaths(t *testing.T) {
	for name, c := range map[string]struct {
		zip    []byte
		reason error
	}{
		"dot-dot inside the folder": {inFolder(t, "p", "p/../../evil"), ErrBadPath},
		"file and folder clash":     {inFolder(t, "p", "p/tests/1.in/x"), ErrDuplicate},
		"stray file in tests":       {inFolder(t, "p", "p/tests/notes.txt"), ErrBadTests},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ReadBytes(c.zip, DefaultLimits()); !errors.Is(err, c.reason) {
				t.Fatalf("err = %v, want %v", err, c.reason)
			}
		})
	}
}

// orderedZipOf writes entries in the given order: a name ending in '/' is a directory,
// a file holds contents[name], or "x".
func orderedZipOf(t *testing.T, names []string, contents map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		if c, ok := contents[n]; ok {
			w.Write([]byte(c))
		} else if !strings.HasSuffix(n, "/") {
			w.Write([]byte("x"))
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
