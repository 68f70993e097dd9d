package problem

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"oj/core/judge/problem/problemtest"
)

// deflated is a zip of files, compressed (problemtest.Zip's writer deflates too, but
// this says so where the ratio matters).
func deflated(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for n, c := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(c))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRepetitiveTestDataIsNotABomb: real test data is often one line repeated (10 MB of
// "1 1\n" compresses by far more than 300:1); only what it unpacks to counts.
func TestRepetitiveTestDataIsNotABomb(t *testing.T) {
	in := strings.Repeat("1 1\n", 10_000_000/4)
	out := strings.Repeat("2\n", 10_000_000/4)
	b := deflated(t, map[string]string{"problem.yaml": aplusbYAML, "tests/1.in": in, "tests/1.out": out})
	if ratio := (len(in) + len(out)) / len(b); ratio < 300 {
		t.Fatalf("test data compresses only %d:1; the test wants more than 300:1", ratio)
	}
	p, err := ReadBytes(b, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := p.Extract(dir); err != nil {
		t.Fatal(err)
	}
	q, err := OpenDir(dir, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if q.files["tests/1.in"] != int64(len(in)) {
		t.Fatalf("extracted tests/1.in is %d bytes, want %d", q.files["tests/1.in"], len(in))
	}
}

// TestLimitsCountWhatIsUnpacked: every limit is enforced on the bytes really inflated,
// whatever the headers declare, and the refusal names the config key to raise.
func TestLimitsCountWhatIsUnpacked(t *testing.T) {
	small := DefaultLimits()
	small.MaxTotalBytes, small.MaxFileBytes, small.MaxFiles = 1<<20, 600<<10, 10
	half := strings.Repeat("x", 512<<10)
	cases := []struct {
		name   string
		zip    []byte
		reason error
		detail string
	}{
		{"files together over the total", withExtra(map[string]string{"a.txt": half, "b.txt": half, "c.txt": half}), ErrTooLarge,
			"the package unpacks to more than 1048576 bytes, the limit (judge.package_limits.max_total_bytes)"},
		{"one file over its limit", withExtra(map[string]string{"big.txt": strings.Repeat("y", 700<<10)}), ErrTooLarge,
			"declares 716800 bytes, over the limit of 614400 for one file (judge.package_limits.max_file_bytes)"},
		{"a small declared size that inflates to more", rawZip(t, "bomb.txt", 1000, make([]byte, 4<<20), 0), ErrZipBomb,
			`"bomb.txt": declares 1000 bytes but unpacks to more`},
		{"too many entries", withExtra(map[string]string{"1": "", "2": "", "3": "", "4": "", "5": ""}), ErrTooManyFiles,
			"the zip has 12 entries, over the limit of 10 (judge.package_limits.max_files)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadBytes(c.zip, small)
			if !errors.Is(err, c.reason) || !IsInvalid(err) {
				t.Fatalf("err = %v, want %v", err, c.reason)
			}
			if !strings.Contains(err.Error(), c.detail) {
				t.Fatalf("err = %q, want it to contain %q", err, c.detail)
			}
		})
	}
	lim := DefaultLimits()
	lim.MaxZipBytes = 100
	_, err := ReadBytes(problemtest.Zip(problemtest.APlusB(aplusbYAML)), lim)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "over the limit of 100 (judge.package_limits.max_zip_bytes)") {
		t.Fatalf("err = %v", err)
	}
}

// TestLeftOutEntriesCostNothing: names that are left out (macOS's __MACOSX) are never
// inflated, so they cannot be used to get around the limits or to slow a read down.
func TestLeftOutEntriesCostNothing(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxTotalBytes = 1 << 20
	files := problemtest.APlusB(aplusbYAML)
	for i := 0; i < 4; i++ {
		files[fmt.Sprintf("__MACOSX/._%d", i)] = strings.Repeat("z", 512<<10)
	}
	p, err := ReadBytes(problemtest.Zip(files), lim)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range p.Files() {
		if strings.HasPrefix(n, "__MACOSX") {
			t.Fatalf("%s kept", n)
		}
	}
}
