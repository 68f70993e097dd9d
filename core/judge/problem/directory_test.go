package problem

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"oj/core/judge/problem/problemtest"
)

// TestReadRefusesTwoMillionEntries: the upload of the report, 2,000,000 empty entries
// (about 100 MiB), is refused for its entry count before archive/zip parses its
// directory, so refusing it costs memory bounded by the limits, not by the upload —
// whether its end record tells the count or understates it.
func TestReadRefusesTwoMillionEntries(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "entries.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const n = 2_000_000
	honest := problemtest.DirZip{N: n, NameLen: 7, Records: n, Zip64: true}
	if err := honest.WriteEntries(f); err != nil {
		t.Fatal(err)
	}
	entriesEnd, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		end    problemtest.DirZip
		detail string
	}{
		{"told", honest, "the zip has 2000000 entries, over the limit of 2000 (" + keyMaxFiles + ")"},
		// 10 entries in 530 bytes: archive/zip would read on to the 2,000,000th before it
		// noticed that the count is wrong.
		{"understated", problemtest.DirZip{N: n, NameLen: 7, Records: 10, Size: 530}, "the zip has more than 2000 entries"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := f.Truncate(entriesEnd); err != nil {
				t.Fatal(err)
			}
			if _, err := f.Seek(entriesEnd, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			if err := c.end.WriteEnd(f); err != nil {
				t.Fatal(err)
			}
			st, err := f.Stat()
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err = Read(f, st.Size(), DefaultLimits())
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrTooManyFiles) || !strings.Contains(err.Error(), c.detail) {
				t.Fatalf("err = %v, want %v saying %q", err, ErrTooManyFiles, c.detail)
			}
			// Parsing the whole directory allocated 555 MiB.
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("a %d-byte zip of %d entries: Read allocated %d KiB to refuse it", st.Size(), n, alloc>>10)
			if alloc > 4<<20 {
				t.Fatalf("Read allocated %d bytes to refuse it; want the cost bounded by the limits", alloc)
			}
		})
	}
}

// TestReadRefusesLyingDirectories: a zip whose end record understates its entries or its
// directory's bytes is stopped while its directory is walked, once over a limit.
func TestReadRefusesLyingDirectories(t *testing.T) {
	lim := DefaultLimits()
	cases := []struct {
		name   string
		zip    problemtest.DirZip
		reason error
		detail string
	}{
		// 65,546 entries declared as 10: archive/zip compares the count's low 16 bits only,
		// so it would take all of them.
		{"count understated modulo 65536", problemtest.DirZip{N: 65_546, NameLen: 7, Records: 10, Size: 530}, ErrTooManyFiles,
			"the zip has more than 2000 entries, the limit (judge.package_limits.max_files), whatever its end record declares"},
		{"zip64 count understated", problemtest.DirZip{N: 3000, NameLen: 7, Records: 10, Size: 530, Zip64: true}, ErrTooManyFiles,
			"more than 2000 entries"},
		{"honest count over the limit", problemtest.DirZip{N: 2001, NameLen: 7, Records: 2001}, ErrTooManyFiles,
			"the zip has 2001 entries, over the limit of 2000 (judge.package_limits.max_files)"},
		{"directory over its bound, declared", problemtest.DirZip{N: 100, NameLen: 7, Comment: 60_000, Records: 100}, ErrTooManyFiles,
			"the zip's directory is 6005300 bytes, over the 2650000 bytes that 2000 entries may take (judge.package_limits.max_files)"},
		{"directory over its bound, understated", problemtest.DirZip{N: 100, NameLen: 7, Comment: 60_000, Records: 100, Size: 5300}, ErrTooManyFiles,
			"the zip's directory takes more than 2650000 bytes"},
		{"name too long", problemtest.DirZip{N: 3, NameLen: 256, Records: 3}, ErrBadPath, "path longer than 255 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.zip.Bytes()
			_, err := ReadBytes(b, lim)
			if !errors.Is(err, c.reason) || !IsInvalid(err) || !strings.Contains(err.Error(), c.detail) {
				t.Fatalf("err = %v, want %v saying %q", err, c.reason, c.detail)
			}
		})
	}
	// The same directories within the limits reach archive/zip, which reads them whole:
	// what the walk counted is what it parses.
	for _, z := range []problemtest.DirZip{{N: 2000, NameLen: 7, Records: 2000}, {N: 65_536 + 5, NameLen: 7, Records: 5},
		{N: 10, NameLen: 255, Comment: 1000, Records: 10, Zip64: true}} {
		b := z.Bytes()
		big := lim
		big.MaxFiles = max(z.N, 2000)
		if err := scanDirectory(bytes.NewReader(b), int64(len(b)), big); err != nil {
			t.Fatalf("%+v: %v", z, err)
		}
		zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil || len(zr.File) != z.N {
			t.Fatalf("%+v: archive/zip read %v entries, err %v", z, zr, err)
		}
	}
}

// FuzzScanDirectory: whatever the bytes, a directory scanDirectory lets through is one
// archive/zip reads within the limits (never more entries, longer names or more bytes).
func FuzzScanDirectory(f *testing.F) {
	seed := func(z problemtest.DirZip) { f.Add(z.Bytes()) }
	seed(problemtest.DirZip{N: 9, NameLen: 7, Records: 9})
	seed(problemtest.DirZip{N: 9, NameLen: 7, Records: 9, Zip64: true})
	seed(problemtest.DirZip{N: 12, NameLen: 7, Records: 3})
	seed(problemtest.DirZip{N: 4, NameLen: 7, Comment: 300, Records: 4, Size: 20})
	f.Add(problemtest.Zip(problemtest.APlusB(aplusbYAML)))
	f.Add(withExtra(map[string]string{"a": "x", "b/c": "y"}))
	lim := DefaultLimits()
	lim.MaxFiles = 8
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := scanDirectory(bytes.NewReader(b), int64(len(b)), lim); err != nil {
			if !IsInvalid(err) {
				t.Fatalf("not an *InvalidError: %v", err)
			}
			return
		}
		zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
			return
		}
		if len(zr.File) > lim.MaxFiles {
			t.Fatalf("archive/zip read %d entries after the scan let %d through", len(zr.File), lim.MaxFiles)
		}
		var bytes int64
		for _, f := range zr.File {
			if len(f.Name) > maxNameBytes {
				t.Fatalf("a %d-byte name got through", len(f.Name))
			}
			bytes += int64(dirHeaderLen + len(f.Name) + len(f.Extra) + len(f.Comment))
		}
		if bytes > maxDirectoryBytes(lim.MaxFiles) {
			t.Fatalf("a %d-byte directory got through", bytes)
		}
	})
}
