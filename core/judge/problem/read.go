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
	"strings"
)

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
