package problem

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"oj/core/judge/problem/problemtest"
)

const aplusbYAML = "title: A+B\ntime_limit_ms: 1000\nmemory_limit_mb: 256\n"

func TestReadValidPackage(t *testing.T) {
	files := problemtest.APlusB("title: A+B\ntime_limit_ms: 2000\nmemory_limit_mb: 128\nchecker: {type: float, epsilon: 1e-4}\nsubtasks:\n  - {score: 40, cases: [1]}\n  - {score: 60, cases: [2, 3]}\n")
	p, err := ReadBytes(problemtest.Zip(files), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if p.Title() != "A+B" || p.CaseCount() != 3 || p.CheckerType() != "float" || p.Spec.Checker.Epsilon != 1e-4 {
		t.Fatalf("unexpected metadata: %+v cases=%d", p.Spec, p.CaseCount())
	}
	if p.Spec.TimeLimit().Milliseconds() != 2000 || p.Spec.MemoryLimitBytes() != 128<<20 || len(p.Subtasks()) != 2 {
		t.Fatalf("limits/subtasks: %+v", p.Spec)
	}
	dir := t.TempDir()
	if err := p.Extract(dir); err != nil {
		t.Fatal(err)
	}
	q, err := OpenDir(dir, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if q.CaseCount() != 3 || q.Title() != "A+B" {
		t.Fatalf("OpenDir: %+v", q.Spec)
	}
}

func TestReadDefaults(t *testing.T) {
	p, err := ReadBytes(problemtest.Zip(problemtest.APlusB("title: x\n")), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.TimeLimitMS != 1000 || p.Spec.MemoryLimitMB != 256 || p.CheckerType() != "lines" {
		t.Fatalf("defaults: %+v", p.Spec)
	}
}

// rawZip writes one entry whose compressed data and declared sizes the caller chooses.
func rawZip(t *testing.T, name string, declared uint64, content []byte, mode os.FileMode) []byte {
	t.Helper()
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	fw.Write(content)
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	h := &zip.FileHeader{Name: name, Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(content),
		CompressedSize64: uint64(comp.Len()), UncompressedSize64: declared}
	if mode != 0 {
		h.SetMode(mode)
	}
	w, err := zw.CreateRaw(h)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(comp.Bytes())
	// A valid rest, so only the entry under test is wrong.
	for n, c := range problemtest.APlusB(aplusbYAML) {
		w, _ := zw.Create(n)
		w.Write([]byte(c))
	}
	zw.Close()
	return buf.Bytes()
}

func withExtra(extra map[string]string) []byte {
	files := problemtest.APlusB(aplusbYAML)
	for k, v := range extra {
		files[k] = v
	}
	return problemtest.Zip(files)
}

func without(names ...string) []byte {
	files := problemtest.APlusB(aplusbYAML)
	for _, n := range names {
		delete(files, n)
	}
	return problemtest.Zip(files)
}

func TestReadRejectsHostilePackages(t *testing.T) {
	zeros := make([]byte, 16<<20)
	cases := []struct {
		name   string
		zip    []byte
		reason error
		detail string
	}{
		{"zip bomb that lies about its size", rawZip(t, "statement.txt", 100, zeros, 0), ErrZipBomb, "declares 100 bytes but unpacks to more"},
		{"entry declared over the size limit", rawZip(t, "big.txt", 1<<40, []byte("x"), 0), ErrTooLarge, "over the limit of 268435456 for one file (judge.package_limits.max_file_bytes)"},
		{"entry shorter than declared", rawZip(t, "short.txt", 1000, []byte("x"), 0), ErrCorrupt, "declares 1000 bytes but unpacks to fewer"},
		{"dot-dot path", withExtra(map[string]string{"../evil": "x"}), ErrBadPath, "'..'"},
		{"nested dot-dot path", withExtra(map[string]string{"tests/../../evil": "x"}), ErrBadPath, "'..'"},
		{"absolute path", withExtra(map[string]string{"/etc/cron.d/evil": "x"}), ErrBadPath, "absolute"},
		{"backslash path", withExtra(map[string]string{"..\\evil": "x"}), ErrBadPath, "backslash"},
		{"symlink entry", rawZip(t, "tests/link", 11, []byte("/etc/passwd"), os.ModeSymlink|0o777), ErrSymlink, "symlinks"},
		{"missing .out", without("tests/2.out"), ErrMissingFile, "tests/2.out"},
		{"missing problem.yaml", without("problem.yaml"), ErrMissingFile, "problem.yaml"},
		{"gap in numbering", without("tests/2.in", "tests/2.out"), ErrBadTests, "tests/2.in"},
		{"stray file in tests", withExtra(map[string]string{"tests/notes.txt": "x"}), ErrBadTests, "tests/notes.txt"},
		{"leading zero", withExtra(map[string]string{"tests/01.in": "x"}), ErrBadTests, "tests/01.in"},
		{"not a zip", []byte("PK\x03\x04 definitely not"), ErrNotZip, ""},
		{"bad yaml", withExtra(map[string]string{"problem.yaml": "title: [unclosed\n"}), ErrBadYAML, "problem.yaml"},
		{"unknown yaml key", withExtra(map[string]string{"problem.yaml": "title: x\ntimelimit: 3\n"}), ErrBadYAML, "timelimit"},
		{"no title", withExtra(map[string]string{"problem.yaml": "time_limit_ms: 1000\n"}), ErrBadYAML, "title"},
		{"bad checker type", withExtra(map[string]string{"problem.yaml": "title: x\nchecker: {type: magic}\n"}), ErrBadChecker, "magic"},
		{"testlib without source", withExtra(map[string]string{"problem.yaml": "title: x\nchecker: {type: testlib, source: chk.cpp}\n"}), ErrBadChecker, "chk.cpp"},
		{"negative epsilon", withExtra(map[string]string{"problem.yaml": "title: x\nchecker: {type: float, epsilon: -1}\n"}), ErrBadChecker, "epsilon"},
		{"huge time limit", withExtra(map[string]string{"problem.yaml": "title: x\ntime_limit_ms: 999999\n"}), ErrBadLimits, "time_limit_ms"},
		{"subtask with unknown case", withExtra(map[string]string{"problem.yaml": "title: x\nsubtasks: [{score: 100, cases: [1, 2, 3, 4]}]\n"}), ErrBadSubtasks, "case 4"},
		{"case in no subtask", withExtra(map[string]string{"problem.yaml": "title: x\nsubtasks: [{score: 100, cases: [1, 2]}]\n"}), ErrBadSubtasks, "case 3"},
		{"case in two subtasks", withExtra(map[string]string{"problem.yaml": "title: x\nsubtasks: [{score: 50, cases: [1, 2]}, {score: 50, cases: [2, 3]}]\n"}), ErrBadSubtasks, "case 2"},
		{"missing interactor", withExtra(map[string]string{"problem.yaml": "title: x\ninteractor: inter.cpp\n"}), ErrBadInteractor, "inter.cpp"},
		// Trees no worker could extract: a name that is both a file and a directory.
		{"file inside a test file", withExtra(map[string]string{"tests/1.in/x": "y"}), ErrDuplicate, `inside "tests/1.in", which is a file`},
		{"file inside a file", withExtra(map[string]string{"a": "x", "a/b": "y"}), ErrDuplicate, `inside "a", which is a file`},
		{"file inside a file, deeper", withExtra(map[string]string{"a": "x", "a/b/c/d": "y"}), ErrDuplicate, `inside "a", which is a file`},
		{"file after a file inside it", orderedZip(t, "a/b", "a"), ErrDuplicate, "both a file and a directory"},
		{"file after a file deep inside it", orderedZip(t, "a/b/c", "a/b"), ErrDuplicate, "both a file and a directory"},
		{"directory entry then a file of its name", orderedZip(t, "a/", "a"), ErrDuplicate, "both a file and a directory"},
		{"file then a directory entry of its name", orderedZip(t, "a", "a/"), ErrDuplicate, "both a file and a directory"},
		{"directory entry inside a file", orderedZip(t, "a", "a/b/"), ErrDuplicate, `inside "a", which is a file`},
		{"problem.yaml as a directory too", orderedZip(t, "problem.yaml/x"), ErrDuplicate, `inside "problem.yaml", which is a file`},
		{"file twice", orderedZip(t, "notes.txt", "notes.txt"), ErrDuplicate, "appears twice"},
		// Top-level names starting with '.' are the judge's: left out, so the package
		// cannot use them.
		{"checker under a judge-owned name", withExtra(map[string]string{"problem.yaml": "title: x\nchecker: {type: testlib, source: .chk.cpp}\n",
			".chk.cpp": "int main(){}"}), ErrBadChecker, ".chk.cpp"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadBytes(c.zip, DefaultLimits())
			if !errors.Is(err, c.reason) {
				t.Fatalf("err = %v, want %v", err, c.reason)
			}
			if !IsInvalid(err) {
				t.Fatalf("err %v is not an *InvalidError", err)
			}
			if !strings.Contains(err.Error(), c.detail) {
				t.Fatalf("err = %q, want it to mention %q", err, c.detail)
			}
		})
	}
}

// orderedZip is a valid A+B package followed by extra entries in the given order (a
// name ending in '/' is a directory entry).
func orderedZip(t *testing.T, extra ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for n, c := range problemtest.APlusB(aplusbYAML) {
		w, _ := zw.Create(n)
		w.Write([]byte(c))
	}
	for _, n := range extra {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(n, "/") {
			w.Write([]byte("x"))
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestJudgeOwnedNamesAreLeftOut(t *testing.T) {
	// A zip from a setter's working copy, with names the worker's cache uses itself.
	b := withExtra(map[string]string{".complete": "", ".build/checker.cpp.bin": "\x7fELF evil", ".DS_Store": "x",
		".git/config": "x", "docs/.notes": "kept: only the top level is the judge's"})
	p, err := ReadBytes(b, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := p.Extract(dir); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{".complete", ".build", ".DS_Store", ".git"} {
		if _, err := os.Lstat(filepath.Join(dir, n)); !os.IsNotExist(err) {
			t.Fatalf("%s extracted (%v)", n, err)
		}
	}
	q, err := OpenDir(dir, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sortedFiles(q), sortedFiles(p); !slices.Equal(got, want) || !slices.Contains(got, "docs/.notes") {
		t.Fatalf("OpenDir files %v, Read files %v", got, want)
	}
}

func sortedFiles(p *Package) []string {
	f := p.Files()
	slices.Sort(f)
	return f
}

func TestReadRejectsOversizedArchive(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxZipBytes = 100
	_, err := ReadBytes(problemtest.Zip(problemtest.APlusB(aplusbYAML)), lim)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v", err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add(problemtest.Zip(problemtest.APlusB(aplusbYAML)))
	f.Add(problemtest.Zip(problemtest.APlusB("title: t\nchecker: {type: testlib, source: c.cpp}\nsubtasks: [{score: 1, cases: [1,2,3]}]\n")))
	f.Add(withExtra(map[string]string{"../x": "y"}))
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	f.Add(withExtra(map[string]string{"a": "x", "a/b": "y"}))
	f.Add(withExtra(map[string]string{"tests/1.in/x": "y", ".complete": "", ".build/c.bin": "z"}))
	folder := map[string]string{"__MACOSX/p/._problem.yaml": "x", ".DS_Store": "x"}
	for n, c := range problemtest.APlusB(aplusbYAML) {
		folder["p/"+n] = c
	}
	f.Add(problemtest.Zip(folder))
	folder["problem.yaml"] = aplusbYAML
	f.Add(problemtest.Zip(folder))
	f.Add(withExtra(map[string]string{"tests/1.in": strings.Repeat("1 1\n", 1<<15)}))
	f.Add(problemtest.DirZip{N: 12, NameLen: 7, Records: 3, Size: 159}.Bytes())
	f.Add(problemtest.DirZip{N: 5, NameLen: 7, Records: 5, Zip64: true}.Bytes())
	lim := DefaultLimits()
	lim.MaxTotalBytes = 1 << 20
	lim.MaxFileBytes = 1 << 20
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ReadBytes(b, lim)
		if err != nil {
			if p != nil {
				t.Fatal("package returned with an error")
			}
			return
		}
		// Whatever Read accepts must be complete and safe to extract.
		if p.CaseCount() < 1 || p.Title() == "" {
			t.Fatalf("accepted an incomplete package: %+v", p.Spec)
		}
		for _, n := range p.Files() {
			if checkPath(n) != nil || leftOut(n) {
				t.Fatalf("accepted unsafe or left-out path %q", n)
			}
		}
		// And a worker's cache must extract it and describe it as Read did.
		dir := t.TempDir()
		if err := p.Extract(dir); err != nil {
			t.Fatalf("extract accepted package: %v", err)
		}
		q, err := OpenDir(dir, lim)
		if err != nil {
			t.Fatalf("reopen extracted package: %v", err)
		}
		if !slices.Equal(sortedFiles(q), sortedFiles(p)) || q.CaseCount() != p.CaseCount() || q.Title() != p.Title() {
			t.Fatalf("reopened %v (%d cases), read %v (%d cases)", sortedFiles(q), q.CaseCount(), sortedFiles(p), p.CaseCount())
		}
	})
}
