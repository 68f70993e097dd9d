package problem

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type entry struct {
	name string
	mode os.FileMode
	body string
}

func zipEntries(t *testing.T, es ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range es {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		h.SetMode(e.mode)
		f, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A run's files are unpacked beside the source, dot files included, the source never
// overwritten; hostile zips are refused by the package rules before anything is read.
func TestUnpackFilesFollowsThePackageRules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.c"), []byte("source"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := zipEntries(t, entry{"lib/", os.ModeDir | 0o755, ""}, entry{"lib/a.h", 0o644, "#define A 1\n"},
		entry{".env", 0o644, "dot"}, entry{"main.c", 0o644, "not the source"})
	if err := CheckFiles(good, FilesLimits(1<<20)); err != nil {
		t.Fatal(err)
	}
	if err := UnpackFiles(good, dir, FilesLimits(1<<20)); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"lib/a.h": "#define A 1\n", ".env": "dot", "main.c": "source"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Fatalf("%s: %q %v", name, b, err)
		}
	}
	lim := FilesLimits(1 << 20)
	lim.MaxFiles, lim.MaxTotalBytes = 3, 100
	for _, c := range []struct {
		name string
		zip  []byte
		want error
	}{
		{"symlink", zipEntries(t, entry{"link", os.ModeSymlink | 0o777, "/etc/passwd"}), ErrSymlink},
		{"dot dot", zipEntries(t, entry{"a/../../x", 0o644, "x"}), ErrBadPath},
		{"absolute", zipEntries(t, entry{"/etc/x", 0o644, "x"}), ErrBadPath},
		{"too many", zipEntries(t, entry{"1", 0o644, ""}, entry{"2", 0o644, ""}, entry{"3", 0o644, ""}, entry{"4", 0o644, ""}), ErrTooManyFiles},
		{"too large", zipEntries(t, entry{"big", 0o644, strings.Repeat("x", 101)}), ErrTooLarge},
		{"file and dir", zipEntries(t, entry{"a", 0o644, "x"}, entry{"a/b", 0o644, "y"}), ErrDuplicate},
	} {
		out := t.TempDir()
		err := UnpackFiles(c.zip, out, lim)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
		if cerr := CheckFiles(c.zip, lim); !errors.Is(cerr, c.want) {
			t.Errorf("%s checked: %v, want %v", c.name, cerr, c.want)
		}
	}
	if err := CheckFiles([]byte("not a zip"), lim); !errors.Is(err, ErrNotZip) {
		t.Errorf("not a zip: %v", err)
	}
}
