package problem

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Files of a run (a Judge0 submission's additional_files): a zip the caller sends with
// the source, unpacked beside it before compiling. It is as hostile as a package and
// read by the same rules — entries, sizes and CRCs counted as inflated, no symlinks, no
// absolute, unclean or '..' path, no name both a file and a directory — but it has no
// problem.yaml, no top folder is stripped and no name is left out.

// FilesLimits are the bounds of a run's files: 1,000 entries, 32 MiB unpacked in all and
// per file, the zip itself at most maxZip bytes.
func FilesLimits(maxZip int64) Limits {
	return Limits{MaxZipBytes: maxZip, MaxTotalBytes: 32 << 20, MaxFileBytes: 32 << 20, MaxFiles: 1000, MaxCases: 1}
}

// CheckFiles validates a run's zip of files within lim, inflating every file to count
// it, without writing anything: an *InvalidError says what is wrong.
func CheckFiles(b []byte, lim Limits) error { return unpackFiles(b, "", lim) }

// UnpackFiles writes a run's zip of files under dir (which must exist), checked as
// CheckFiles does. A file whose name exists in dir already (the source) is not
// overwritten: it is skipped.
func UnpackFiles(b []byte, dir string, lim Limits) error {
	if dir == "" {
		return errors.New("unpack files: no directory")
	}
	return unpackFiles(b, dir, lim)
}

func unpackFiles(b []byte, dir string, lim Limits) error {
	zr, err := openZip(bytes.NewReader(b), int64(len(b)), lim)
	if err != nil {
		return err
	}
	tree := newLayout()
	tree.keepAll = true
	budget := unpackBudget{lim: lim}
	for _, f := range zr.File {
		name, isDir, err := checkEntry(f)
		if err != nil {
			return err
		}
		if isDir {
			if _, err := tree.addDir(name); err != nil {
				return err
			}
			if dir != "" {
				if err := mkdirIn(dir, name); err != nil {
					return err
				}
			}
			continue
		}
		if _, err := tree.addFile(name, 0); err != nil {
			return err
		}
		if dir == "" {
			if _, err := budget.inflate(f, name, io.Discard); err != nil {
				return err
			}
			continue
		}
		if err := writeIn(dir, name, func(w io.Writer) error { _, err := budget.inflate(f, name, w); return err }); err != nil {
			return err
		}
	}
	return nil
}

// mkdirIn makes directory name (a checked, clean relative path) under dir.
func mkdirIn(dir, name string) error {
	if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(name)), 0o755); err != nil {
		return fmt.Errorf("unpack files: %w", err)
	}
	return nil
}

// writeIn creates file name under dir and fills it with fill; a name that exists
// already is skipped. The paths are the zip's own, checked: relative, clean, no '..',
// and dir holds nothing but what was unpacked and the source, so no link is followed.
func writeIn(dir, name string, fill func(io.Writer) error) error {
	dst := filepath.Join(dir, filepath.FromSlash(name))
	if !strings.HasPrefix(dst, filepath.Clean(dir)+string(filepath.Separator)) {
		return invalid(ErrBadPath, name, "outside the work directory")
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("unpack files: %w", err)
	}
	w, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("unpack files: %w", err)
	}
	err = fill(w)
	if cerr := w.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("unpack files %s: %w", name, cerr)
	}
	return err
}
