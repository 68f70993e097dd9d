// Package problem reads, validates and describes problem packages: a zip holding
// problem.yaml and tests/<n>.in, tests/<n>.out (n = 1, 2, …) plus optional checker and
// interactor sources. Package input is hostile: Read refuses zip bombs, unsafe paths,
// symlinks, trees that cannot be extracted and incomplete packages with an
// *InvalidError that says why.
package problem

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// Limits bound what Read accepts. They are the config keys judge.package_limits.*;
// errors name the key that refused a package, so an admin knows what to raise.
type Limits struct {
	// MaxZipBytes bounds the archive itself.
	MaxZipBytes int64 `mapstructure:"max_zip_bytes"`
	// MaxTotalBytes bounds the bytes all the package's files unpack to, counted as
	// they are inflated (entries' declared sizes are never trusted).
	MaxTotalBytes int64 `mapstructure:"max_total_bytes"`
	// MaxFileBytes bounds the bytes one file unpacks to, counted likewise.
	MaxFileBytes int64 `mapstructure:"max_file_bytes"`
	// MaxFiles bounds the zip's entries (files, directories and left-out names alike).
	MaxFiles int `mapstructure:"max_files"`
	// MaxCases bounds the number of test cases.
	MaxCases int `mapstructure:"max_cases"`
}

// The config keys of Limits, as errors name them.
const (
	keyMaxZipBytes   = "judge.package_limits.max_zip_bytes"
	keyMaxTotalBytes = "judge.package_limits.max_total_bytes"
	keyMaxFileBytes  = "judge.package_limits.max_file_bytes"
	keyMaxFiles      = "judge.package_limits.max_files"
	keyMaxCases      = "judge.package_limits.max_cases"
)

// DefaultLimits returns the defaults: 256 MiB zip, 1 GiB unpacked, 256 MiB per file,
// 2,000 entries, 500 cases.
func DefaultLimits() Limits {
	return Limits{
		MaxZipBytes:   256 << 20,
		MaxTotalBytes: 1 << 30,
		MaxFileBytes:  256 << 20,
		MaxFiles:      2000,
		MaxCases:      500,
	}
}

// Validate names the first bad key.
func (l Limits) Validate() error {
	switch {
	case l.MaxZipBytes <= 0:
		return errors.New("max_zip_bytes: must be > 0")
	case l.MaxTotalBytes <= 0:
		return errors.New("max_total_bytes: must be > 0")
	case l.MaxFileBytes <= 0:
		return errors.New("max_file_bytes: must be > 0")
	case l.MaxFiles <= 0:
		return errors.New("max_files: must be > 0")
	case l.MaxCases <= 0:
		return errors.New("max_cases: must be > 0")
	}
	return nil
}

// Package is a validated problem package.
type Package struct {
	Spec  Spec
	cases int
	files map[string]int64 // regular files and their sizes
	zr    *zip.Reader      // nil for a package opened from a directory
	root  string           // the folder of the zip the package is in ("" or "D/")
	lim   Limits
}

// openZip opens the zip in r (size bytes) within lim: its size, then its directory's
// entries and names, bounded while the directory is read (before archive/zip holds the
// whole of it in memory).
func openZip(r io.ReaderAt, size int64, lim Limits) (*zip.Reader, error) {
	if size > lim.MaxZipBytes {
		return nil, invalid(ErrTooLarge, "", "the zip is %d bytes, over the limit of %d (%s)", size, lim.MaxZipBytes, keyMaxZipBytes)
	}
	if err := scanDirectory(r, size, lim); err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, invalid(ErrNotZip, "", "%v", err)
	}
	if len(zr.File) > lim.MaxFiles {
		return nil, invalid(ErrTooManyFiles, "", "the zip has %d entries, over the limit of %d (%s)", len(zr.File), lim.MaxFiles, keyMaxFiles)
	}
	return zr, nil
}

// ReadBytes is Read on an in-memory zip.
func ReadBytes(b []byte, lim Limits) (*Package, error) {
	return Read(bytes.NewReader(b), int64(len(b)), lim)
}

// Read validates the zip in r (size bytes) entry by entry, inflating every file to
// check its real size and CRC against the limits, and parses problem.yaml.
func Read(r io.ReaderAt, size int64, lim Limits) (*Package, error) {
	zr, err := openZip(r, size, lim)
	if err != nil {
		return nil, err
	}
	entries := make([]zipEntry, len(zr.File))
	for i, f := range zr.File {
		name, isDir, err := checkEntry(f)
		if err != nil {
			return nil, err
		}
		entries[i] = zipEntry{name: name, dir: isDir}
	}
	root, err := findRoot(entries)
	if err != nil {
		return nil, err
	}
	p := &Package{zr: zr, root: root, lim: lim}
	tree := newLayout()
	budget := unpackBudget{lim: lim}
	for i, f := range zr.File {
		name, ok := place(root, entries[i].name)
		if !ok {
			continue
		}
		if entries[i].dir {
			if _, err := tree.addDir(name); err != nil {
				return nil, err
			}
			continue
		}
		kept, err := tree.addFile(name, 0)
		if err != nil {
			return nil, err
		}
		if !kept {
			continue // left out: never extracted, so never read
		}
		n, err := budget.inflate(f, name, io.Discard)
		if err != nil {
			return nil, err
		}
		tree.files[name] = n
	}
	p.files = tree.files
	yml, err := p.readSmall("problem.yaml")
	if err != nil {
		return nil, err
	}
	if err := p.finish(yml); err != nil {
		return nil, err
	}
	return p, nil
}

// checkEntry validates an entry's name and type; it returns the cleaned name.
func checkEntry(f *zip.File) (name string, isDir bool, err error) {
	name = f.Name
	if err := checkPath(name); err != nil {
		return "", false, err
	}
	mode := f.Mode()
	if mode&os.ModeSymlink != 0 {
		return "", false, invalid(ErrSymlink, name, "symlinks are not allowed")
	}
	if strings.HasSuffix(name, "/") || mode.IsDir() {
		return strings.TrimSuffix(name, "/"), true, nil
	}
	if !mode.IsRegular() {
		return "", false, invalid(ErrNotRegular, name, "mode %v", mode)
	}
	return name, false, nil
}

// checkPath refuses anything but a relative, clean, forward-slash path.
func checkPath(name string) error {
	trimmed := strings.TrimSuffix(name, "/")
	switch {
	case trimmed == "":
		return invalid(ErrBadPath, name, "empty name")
	case strings.HasPrefix(name, "/"):
		return invalid(ErrBadPath, name, "absolute path")
	case strings.Contains(name, "\\"):
		return invalid(ErrBadPath, name, "backslash in path")
	case len(name) >= 2 && name[1] == ':':
		return invalid(ErrBadPath, name, "drive-letter path")
	case strings.ContainsRune(name, 0):
		return invalid(ErrBadPath, name, "NUL in path")
	case len(name) > 255:
		return invalid(ErrBadPath, name, "path longer than 255 bytes")
	}
	for _, part := range strings.Split(trimmed, "/") {
		switch part {
		case "..":
			return invalid(ErrBadPath, name, "'..' in path")
		case ".", "":
			return invalid(ErrBadPath, name, "path is not clean")
		}
	}
	if path.Clean(trimmed) != trimmed {
		return invalid(ErrBadPath, name, "path is not clean")
	}
	return nil
}

// unpackBudget counts what a package's files really inflate to against the limits, as
// they are inflated: a zip bomb is stopped once it has produced one byte over a limit,
// whatever its headers declare, and a file that compresses well is fine as long as it
// fits (test data is often one line repeated).
type unpackBudget struct {
	lim   Limits
	total int64
}

// inflate copies f's content to w and returns its size, refusing more bytes than the
// file or package limit leaves, more bytes than the entry declares (a header lying
// about its size), and a bad CRC.
func (b *unpackBudget) inflate(f *zip.File, name string, w io.Writer) (int64, error) {
	if f.UncompressedSize64 > uint64(b.lim.MaxFileBytes) {
		// Declared over the limit: refused without inflating (it would be refused
		// once inflated past the limit anyway).
		return 0, invalid(ErrTooLarge, name, "declares %d bytes, over the limit of %d for one file (%s)", f.UncompressedSize64, b.lim.MaxFileBytes, keyMaxFileBytes)
	}
	rc, err := f.Open()
	if err != nil {
		return 0, invalid(ErrCorrupt, name, "%v", err)
	}
	defer rc.Close()
	allowed := min(b.lim.MaxFileBytes, b.lim.MaxTotalBytes-b.total)
	n, err := io.Copy(w, io.LimitReader(rc, allowed+1))
	b.total += n
	switch {
	case n > allowed && n > b.lim.MaxFileBytes:
		return n, invalid(ErrTooLarge, name, "unpacks to more than %d bytes, the limit for one file (%s)", b.lim.MaxFileBytes, keyMaxFileBytes)
	case n > allowed:
		return n, invalid(ErrTooLarge, name, "the package unpacks to more than %d bytes, the limit (%s)", b.lim.MaxTotalBytes, keyMaxTotalBytes)
	case errors.Is(err, zip.ErrFormat):
		// archive/zip stops a file one byte past its declared size with ErrFormat.
		return n, invalid(ErrZipBomb, name, "declares %d bytes but unpacks to more: the zip is damaged or hostile", f.UncompressedSize64)
	}
	if err != nil {
		switch {
		case errors.Is(err, zip.ErrChecksum):
			return n, invalid(ErrCorrupt, name, "CRC mismatch")
		case errors.Is(err, io.ErrUnexpectedEOF):
			return n, invalid(ErrCorrupt, name, "declares %d bytes but unpacks to fewer: the zip is damaged", f.UncompressedSize64)
		default:
			var pe *os.PathError
			if errors.As(err, &pe) {
				return n, fmt.Errorf("write %s: %w", name, err)
			}
			return n, invalid(ErrCorrupt, name, "%v", err)
		}
	}
	return n, nil
}

// ReadFile returns a file's content, refusing one over max bytes (ErrTooLarge) and a
// name the package does not hold (ErrMissingFile). Only a package from Read has
// content to read.
func (p *Package) ReadFile(name string, max int64) ([]byte, error) {
	size, ok := p.files[name]
	if !ok {
		return nil, invalid(ErrMissingFile, name, "the package has no %s", name)
	}
	if size > max {
		return nil, invalid(ErrTooLarge, name, "%d bytes, over %d", size, max)
	}
	if p.zr == nil {
		return nil, errors.New("read file: package was not read from a zip")
	}
	for _, f := range p.zr.File {
		if n, ok := place(p.root, f.Name); ok && n == name && !strings.HasSuffix(f.Name, "/") {
			var buf bytes.Buffer
			budget := unpackBudget{lim: Limits{MaxFileBytes: max, MaxTotalBytes: max}}
			if _, err := budget.inflate(f, name, &buf); err != nil {
				return nil, err
			}
			return buf.Bytes(), nil
		}
	}
	return nil, invalid(ErrMissingFile, name, "the package has no %s", name)
}

// Open returns a reader of a file's content (a statement, a sample), inflated as it
// is read; the caller closes it.
func (p *Package) Open(name string) (io.ReadCloser, int64, error) {
	size, ok := p.files[name]
	if !ok || p.zr == nil {
		return nil, 0, invalid(ErrMissingFile, name, "the package has no %s", name)
	}
	for _, f := range p.zr.File {
		if n, ok := place(p.root, f.Name); ok && n == name && !strings.HasSuffix(f.Name, "/") {
			rc, err := f.Open()
			if err != nil {
				return nil, 0, invalid(ErrCorrupt, name, "%v", err)
			}
			return rc, size, nil
		}
	}
	return nil, 0, invalid(ErrMissingFile, name, "the package has no %s", name)
}

// readSmall returns a small file's content (problem.yaml).
func (p *Package) readSmall(name string) ([]byte, error) {
	size, ok := p.files[name]
	if !ok {
		return nil, invalid(ErrMissingFile, name, "the package has no %s", name)
	}
	if size > 1<<20 {
		return nil, invalid(ErrTooLarge, name, "%d bytes, the limit is 1 MiB", size)
	}
	for _, f := range p.zr.File {
		if n, ok := place(p.root, f.Name); ok && n == name {
			var buf bytes.Buffer
			budget := unpackBudget{lim: p.lim}
			if _, err := budget.inflate(f, name, &buf); err != nil {
				return nil, err
			}
			return buf.Bytes(), nil
		}
	}
	return nil, invalid(ErrMissingFile, name, "the package has no %s", name)
}

// finish checks the test files and parses problem.yaml.
func (p *Package) finish(yml []byte) error {
	cases, err := countTests(p.files, p.lim.MaxCases)
	if err != nil {
		return err
	}
	p.cases = cases
	has := func(n string) bool { _, ok := p.files[n]; return ok }
	spec, err := parseSpec(yml, cases, has)
	if err != nil {
		return err
	}
	p.Spec = spec
	return nil
}

// countTests checks that tests/ holds exactly 1.in, 1.out … n.in, n.out.
func countTests(files map[string]int64, maxCases int) (int, error) {
	in, out := map[int]bool{}, map[int]bool{}
	for name := range files {
		rest, ok := strings.CutPrefix(name, "tests/")
		if !ok {
			continue
		}
		ext := path.Ext(rest)
		num := strings.TrimSuffix(rest, ext)
		n, err := strconv.Atoi(num)
		if (ext != ".in" && ext != ".out") || err != nil || n < 1 || strconv.Itoa(n) != num {
			return 0, invalid(ErrBadTests, name, "tests/ may hold only <n>.in and <n>.out with n = 1, 2, …")
		}
		if n > maxCases {
			return 0, invalid(ErrBadTests, name, "more than %d cases", maxCases)
		}
		if ext == ".in" {
			in[n] = true
		} else {
			out[n] = true
		}
	}
	if len(in) == 0 {
		return 0, invalid(ErrMissingFile, "tests/1.in", "the package has no tests")
	}
	for n := 1; n <= len(in); n++ {
		if !in[n] {
			return 0, invalid(ErrBadTests, fmt.Sprintf("tests/%d.in", n), "missing: tests must be numbered 1..n without gaps")
		}
		if !out[n] {
			return 0, invalid(ErrMissingFile, fmt.Sprintf("tests/%d.out", n), "every tests/<n>.in needs its tests/<n>.out")
		}
	}
	for n := range out {
		if !in[n] {
			return 0, invalid(ErrMissingFile, fmt.Sprintf("tests/%d.in", n), "tests/%d.out has no input", n)
		}
	}
	return len(in), nil
}

// Title is the problem's title.
func (p *Package) Title() string { return p.Spec.Title }

// CaseCount is the number of test cases.
func (p *Package) CaseCount() int { return p.cases }

// Subtasks returns the subtasks (nil: every case weighs the same).
func (p *Package) Subtasks() []Subtask { return p.Spec.Subtasks }

// CheckerType is lines, exact, tokens, float, testlib or kattis.
func (p *Package) CheckerType() string { return p.Spec.Checker.Type }

// Interactive reports whether the problem is interactive: a testlib interactor, or a
// kattis validator run as one.
func (p *Package) Interactive() bool { return p.Spec.Interactor != "" || p.Spec.Interactive }

// Files lists the package's regular files.
func (p *Package) Files() []string {
	out := make([]string, 0, len(p.files))
	for n := range p.files {
		out = append(out, n)
	}
	return out
}

// Extract writes the package's files under dir (which must exist), inflating them
// again under the same limits and CRC checks as Read, with the zip's top folder (if the
// package is in one) stripped. Only a package from Read can be extracted; Read's layout
// guarantees that every file can be written.
func (p *Package) Extract(dir string) error {
	if p.zr == nil {
		return errors.New("extract: package was not read from a zip")
	}
	budget := unpackBudget{lim: p.lim}
	for _, f := range p.zr.File {
		name, ok := place(p.root, strings.TrimSuffix(f.Name, "/"))
		if !ok {
			continue
		}
		if _, ok := p.files[name]; !ok || strings.HasSuffix(f.Name, "/") {
			continue
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("extract: %w", err)
		}
		w, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return fmt.Errorf("extract: %w", err)
		}
		_, err = budget.inflate(f, name, w)
		if cerr := w.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("extract %s: %w", name, cerr)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
