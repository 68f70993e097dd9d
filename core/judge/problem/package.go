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

// Package is a validated problem package.
type Package struct {
	Spec  Spec
	cases int
	files map[string]int64 // regular files and their sizes
	zr    *zip.Reader      // nil for a package opened from a directory
	root  string           // the folder of the zip the package is in ("" or "D/")
	lim   Limits
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
