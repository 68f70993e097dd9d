package problem

import (
	"path"
	"strings"
)

// layout is the tree a package puts on disk. Every path that reads a package decides its
// files here and nowhere else: Read (the API's upload validation, and a worker before it
// extracts), Extract, and OpenDir (a worker's cache entry). So a package the API accepts
// is one a worker can extract, and a worker sees after a restart what it extracted.
//
// The rules: a name is a file or a directory, never both (entries "a" and "a/b", or
// "tests/1.in" and "tests/1.in/x", cannot both be written); a file appears once; and a
// top-level name starting with '.' belongs to the judge (the cache's completion marker,
// build artefacts), not to the package, so such entries are left out.
type layout struct {
	files map[string]int64 // regular files and their sizes
	dirs  map[string]bool  // directories, declared by an entry or holding a file
}

func newLayout() *layout {
	return &layout{files: map[string]int64{}, dirs: map[string]bool{}}
}

// judgeOwned reports whether name (a clean slash-separated path) is the judge's: its
// first element starts with '.'.
func judgeOwned(name string) bool {
	return strings.HasPrefix(name, ".")
}

// addFile places a regular file; false (and no error) for a name that belongs to the
// judge.
func (l *layout) addFile(name string, size int64) (bool, error) {
	if judgeOwned(name) {
		return false, nil
	}
	if _, dup := l.files[name]; dup {
		return false, invalid(ErrDuplicate, name, "appears twice")
	}
	if l.dirs[name] {
		return false, invalid(ErrDuplicate, name, "is both a file and a directory")
	}
	if err := l.addParents(name); err != nil {
		return false, err
	}
	l.files[name] = size
	return true, nil
}

// addDir places a directory entry; false for a name that belongs to the judge.
func (l *layout) addDir(name string) (bool, error) {
	if judgeOwned(name) {
		return false, nil
	}
	if _, clash := l.files[name]; clash {
		return false, invalid(ErrDuplicate, name, "is both a file and a directory")
	}
	if err := l.addParents(name); err != nil {
		return false, err
	}
	l.dirs[name] = true
	return true, nil
}

// addParents records name's parent directories, refusing one that is already a file.
func (l *layout) addParents(name string) error {
	for dir := path.Dir(name); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if _, clash := l.files[dir]; clash {
			return invalid(ErrDuplicate, name, "is inside %q, which is a file", dir)
		}
		l.dirs[dir] = true
	}
	return nil
}
