package problem

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// OpenDir describes a package already extracted under dir (a worker's cache entry). It
// validates the same rules as Read except the zip-specific ones: problem.yaml must be at
// dir's top (Extract strips a zip's top folder), and the names layout leaves out are
// ignored — top-level names starting with '.' are the judge's own (build artefacts,
// markers) here.
func OpenDir(dir string, lim Limits) (*Package, error) {
	p := &Package{lim: lim}
	tree := newLayout()
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
		if leftOut(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			_, err := tree.addDir(rel)
			return err
		}
		if !d.Type().IsRegular() {
			return invalid(ErrNotRegular, rel, "mode %v", d.Type())
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		_, err = tree.addFile(rel, info.Size())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("open package dir: %w", err)
	}
	p.files = tree.files
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
