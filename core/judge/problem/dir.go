package problem

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// OpenDir describes a package already extracted under dir (a worker's cache entry). It
// validates the same rules as Read except the zip-specific ones; top-level names that
// start with '.' are the judge's own (build artefacts, markers) and are ignored.
func OpenDir(dir string, lim Limits) (*Package, error) {
	p := &Package{files: map[string]int64{}, lim: lim}
	err := filepath.WalkDir(dir, func(full string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, full)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if !strings.Contains(rel, "/") && strings.HasPrefix(rel, ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return invalid(ErrNotRegular, rel, "mode %v", d.Type())
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		p.files[rel] = info.Size()
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("open package dir: %w", err)
	}
	if _, ok := p.files["problem.yaml"]; !ok {
		return nil, invalid(ErrMissingFile, "problem.yaml", "the package has no problem.yaml")
	}
	yml, err := os.ReadFile(filepath.Join(dir, "problem.yaml"))
	if err != nil {
		return nil, fmt.Errorf("open package dir: %w", err)
	}
	if err := p.finish(yml); err != nil {
		return nil, err
	}
	return p, nil
}
