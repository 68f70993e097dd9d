package problem

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
)

// Source is a package archive of any format (oj's own, Kattis, Polygon) before it is
// converted: its entries validated under the same rules and limits as Read — paths,
// entry types, sizes and CRCs counted as inflated — except that a symlink is allowed
// when it is relative and resolves, through at most maxLinkHops links, to a regular file
// inside the package (the Kattis format links test files to each other). A link that
// leaves the package, loops or ends at a directory or nothing is refused, naming it.
//
// The package may sit in one top folder, found as Read finds it, by a marker file
// (problem.yaml or problem.xml).
type Source struct {
	zr    *zip.Reader
	root  string
	files map[string]*zip.File // name (relative to root) → the entry holding its bytes
	links map[string]string    // a symlink's name → the file it resolves to
	dirs  map[string]bool
	lim   Limits
}

// maxLinkHops bounds a chain of symlinks.
const maxLinkHops = 8

// maxLinkTarget bounds a symlink entry's content (its target).
const maxLinkTarget = 1024

// keptDotFiles are top-level names starting with '.' that a format gives a meaning
// (DOMjudge's .timelimit), kept although oj's own layout leaves such names out.
var keptDotFiles = map[string]bool{".timelimit": true}

// Markers are the files that say where a package starts, by format.
var Markers = []string{"problem.yaml", "problem.xml"}

// OpenSourceBytes is OpenSource on an in-memory zip.
func OpenSourceBytes(b []byte, lim Limits) (*Source, error) {
	return OpenSource(bytes.NewReader(b), int64(len(b)), lim)
}

// OpenSource validates the zip in r (size bytes) entry by entry.
func OpenSource(r io.ReaderAt, size int64, lim Limits) (*Source, error) {
	zr, err := openZip(r, size, lim)
	if err != nil {
		return nil, err
	}
	type entry struct {
		name      string
		dir, link bool
		f         *zip.File
	}
	entries := make([]entry, len(zr.File))
	zes := make([]zipEntry, len(zr.File))
	for i, f := range zr.File {
		name := f.Name
		if err := checkPath(name); err != nil {
			return nil, err
		}
		mode := f.Mode()
		e := entry{name: strings.TrimSuffix(name, "/"), f: f}
		switch {
		case mode&os.ModeSymlink != 0:
			e.link = true
		case strings.HasSuffix(name, "/") || mode.IsDir():
			e.dir = true
		case !mode.IsRegular():
			return nil, invalid(ErrNotRegular, name, "mode %v", mode)
		}
		entries[i], zes[i] = e, zipEntry{name: e.name, dir: e.dir}
	}
	root, err := findRootOf(zes, Markers)
	if err != nil {
		return nil, err
	}
	s := &Source{zr: zr, root: root, files: map[string]*zip.File{}, links: map[string]string{}, dirs: map[string]bool{}, lim: lim}
	tree := newLayout()
	budget := unpackBudget{lim: lim}
	linkTo := map[string]string{} // link name → its target as written
	for _, e := range entries {
		name, ok := place(root, e.name)
		if !ok {
			continue
		}
		switch {
		case e.dir:
			if _, err := tree.addDir(name); err != nil {
				return nil, err
			}
			continue
		case e.link:
			kept, err := tree.addFile(name, 0)
			if err != nil || !kept {
				if err != nil {
					return nil, err
				}
				continue
			}
			var buf bytes.Buffer
			lb := unpackBudget{lim: Limits{MaxFileBytes: maxLinkTarget, MaxTotalBytes: maxLinkTarget}}
			if _, err := lb.inflate(e.f, name, &buf); err != nil {
				return nil, invalid(ErrSymlink, name, "its target cannot be read: %v", err)
			}
			linkTo[name] = buf.String()
			continue
		}
		kept, err := tree.addFile(name, 0)
		if err != nil {
			return nil, err
		}
		if !kept && !keptDotFiles[name] {
			continue
		}
		n, err := budget.inflate(e.f, name, io.Discard)
		if err != nil {
			return nil, err
		}
		tree.files[name] = n
		s.files[name] = e.f
	}
	for name := range tree.dirs {
		s.dirs[name] = true
	}
	for name := range linkTo {
		target, err := resolveLink(name, linkTo, s.files, s.dirs)
		if err != nil {
			return nil, err
		}
		s.links[name] = target
		s.files[name] = s.files[target]
	}
	return s, nil
}

// resolveLink follows name's chain of links to a regular file of the package.
func resolveLink(name string, linkTo map[string]string, files map[string]*zip.File, dirs map[string]bool) (string, error) {
	cur := name
	for hop := 0; hop < maxLinkHops; hop++ {
		target := linkTo[cur]
		if target == "" || strings.HasPrefix(target, "/") || strings.Contains(target, "\\") || strings.ContainsRune(target, 0) {
			return "", invalid(ErrSymlink, name, "points to %q: only relative links inside the package are allowed", clip(target, 100))
		}
		next := path.Clean(path.Join(path.Dir(cur), target))
		if next == ".." || strings.HasPrefix(next, "../") || next == "." {
			return "", invalid(ErrSymlink, name, "points to %q, outside the package", clip(target, 100))
		}
		if _, isLink := linkTo[next]; isLink {
			cur = next
			continue
		}
		if dirs[next] {
			return "", invalid(ErrSymlink, name, "points to the folder %q: only links to files are allowed", next)
		}
		if _, ok := files[next]; !ok {
			return "", invalid(ErrSymlink, name, "points to %q, which the package does not hold", next)
		}
		return next, nil
	}
	return "", invalid(ErrSymlink, name, "more than %d links in a row (a loop?)", maxLinkHops)
}

// findRootOf finds the package's root by the first marker present at the top or in a
// single top folder (problem.yaml before problem.xml).
func findRootOf(entries []zipEntry, markers []string) (string, error) {
	for _, m := range markers {
		for _, e := range entries {
			if e.dir || leftOut(e.name) {
				continue
			}
			if e.name == m || strings.Count(e.name, "/") == 1 && path.Base(e.name) == m {
				return findRootFor(entries, m)
			}
		}
	}
	_, err := findRoot(entries)
	var ie *InvalidError
	if errors.As(err, &ie) && ie.Reason == ErrMissingFile {
		ie.Detail = strings.Replace(ie.Detail, "the package has no problem.yaml", "the package has no problem.yaml (oj, Kattis) or problem.xml (Polygon)", 1)
	}
	return "", err
}

// Has reports whether the package holds the file (or a link to one).
func (s *Source) Has(name string) bool { _, ok := s.files[name]; return ok }

// IsDir reports whether the package holds the folder.
func (s *Source) IsDir(name string) bool { return s.dirs[name] }

// Size is a file's size as declared (its real size was checked when opened).
func (s *Source) Size(name string) int64 {
	if f, ok := s.files[name]; ok {
		return int64(f.UncompressedSize64)
	}
	return 0
}

// LinkTarget returns the file a symlink resolves to ("" for a file that is no link).
func (s *Source) LinkTarget(name string) string { return s.links[name] }

// List returns the files directly in folder dir ("" for the top), sorted.
func (s *Source) List(dir string) []string {
	prefix := dir
	if prefix != "" {
		prefix += "/"
	}
	var out []string
	for n := range s.files {
		if rest, ok := strings.CutPrefix(n, prefix); ok && !strings.Contains(rest, "/") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Dirs returns the folders directly in dir, sorted.
func (s *Source) Dirs(dir string) []string {
	prefix := dir
	if prefix != "" {
		prefix += "/"
	}
	var out []string
	for n := range s.dirs {
		if rest, ok := strings.CutPrefix(n, prefix); ok && rest != "" && !strings.Contains(rest, "/") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// ReadFile returns a file's content, refusing one over max bytes.
func (s *Source) ReadFile(name string, max int64) ([]byte, error) {
	f, ok := s.files[name]
	if !ok {
		return nil, invalid(ErrMissingFile, name, "the package has no %s", name)
	}
	var buf bytes.Buffer
	b := unpackBudget{lim: Limits{MaxFileBytes: min(max, s.lim.MaxFileBytes), MaxTotalBytes: min(max, s.lim.MaxFileBytes)}}
	if _, err := b.inflate(f, name, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Copy writes a file's content to w under the package limits.
func (s *Source) Copy(name string, w io.Writer) (int64, error) {
	f, ok := s.files[name]
	if !ok {
		return 0, invalid(ErrMissingFile, name, "the package has no %s", name)
	}
	b := unpackBudget{lim: s.lim}
	return b.inflate(f, name, w)
}

// Limits are the limits the source was opened under.
func (s *Source) Limits() Limits { return s.lim }

// Root is the top folder the package sat in ("" or "D/").
func (s *Source) Root() string { return s.root }

// String names the source for errors.
func (s *Source) String() string { return fmt.Sprintf("package (%d files)", len(s.files)) }

// LinkStub returns the file a link stub resolves to: a small file whose whole content is
// a relative path to another file of the package, which is how git checks out a symlink
// where it makes none (core.symlinks=false). Followed through at most maxLinkHops
// stubs; "" when name is no stub.
func (s *Source) LinkStub(name string) string {
	cur := name
	for hop := 0; hop < maxLinkHops; hop++ {
		f, ok := s.files[cur]
		if !ok || f.UncompressedSize64 == 0 || f.UncompressedSize64 > maxLinkTarget {
			break
		}
		b, err := s.ReadFile(cur, maxLinkTarget)
		if err != nil {
			break
		}
		target := string(b)
		if target == "" || strings.ContainsAny(target, "\n\r\x00\\") || strings.HasPrefix(target, "/") || !strings.Contains(target, "/") && !strings.Contains(target, ".") {
			break
		}
		next := path.Clean(path.Join(path.Dir(cur), target))
		if next == cur || next == ".." || strings.HasPrefix(next, "../") || !s.Has(next) {
			break
		}
		cur = next
	}
	if cur == name {
		return ""
	}
	return cur
}
