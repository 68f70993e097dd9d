package problem

import (
	"fmt"
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
// top-level name that starts with '.' or is __MACOSX is left out: names starting with
// '.' belong to the judge (the cache's completion marker, build artefacts) and to tools
// (.DS_Store, .git), __MACOSX is the resource forks macOS's Finder adds to every zip it
// makes. A zip may hold the package in one top folder (see findRoot): names are then
// taken relative to it, and these rules apply to what is inside.
type layout struct {
	files map[string]int64 // regular files and their sizes
	dirs  map[string]bool  // directories, declared by an entry or holding a file
	// keepAll keeps the names a package leaves out (a run's files are all the caller's).
	keepAll bool
}

func newLayout() *layout {
	return &layout{files: map[string]int64{}, dirs: map[string]bool{}}
}

// leftOut reports whether name (a clean slash-separated path, relative to the
// package's root) is not the package's: its first element starts with '.' or is
// __MACOSX.
func leftOut(name string) bool {
	first, _, _ := strings.Cut(name, "/")
	return strings.HasPrefix(first, ".") || first == "__MACOSX"
}

// addFile places a regular file; false (and no error) for a name that is left out.
func (l *layout) addFile(name string, size int64) (bool, error) {
	if !l.keepAll && leftOut(name) {
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

// addDir places a directory entry; false for a name that is left out.
func (l *layout) addDir(name string) (bool, error) {
	if !l.keepAll && leftOut(name) {
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

// findRoot decides where the package starts in a zip of the given entries: "" when problem.yaml is at the top, or
// "D/" when every entry that is not left out sits in the one folder D, which holds
// problem.yaml (what zipping the package's folder, rather than its content, gives).
// Anything else is refused with what was found.
func findRoot(entries []zipEntry) (string, error) { return findRootFor(entries, "problem.yaml") }

// findRootFor is findRoot with another marker file than problem.yaml (a Polygon
// package's problem.xml).
func findRootFor(entries []zipEntry, marker string) (string, error) {
	var files, folders, yamlIn []string
	seen := map[string]bool{}
	atTop := false
	for _, e := range entries {
		if leftOut(e.name) {
			continue
		}
		first, rest, nested := strings.Cut(e.name, "/")
		switch {
		case e.name == marker && !e.dir:
			atTop = true
		case rest == marker && !e.dir:
			yamlIn = append(yamlIn, first+"/")
		}
		top := first
		if nested || e.dir {
			top += "/"
		}
		if seen[top] {
			continue
		}
		seen[top] = true
		if strings.HasSuffix(top, "/") {
			folders = append(folders, top)
		} else {
			files = append(files, top)
		}
	}
	switch {
	case atTop && len(yamlIn) > 0:
		return "", invalid(ErrLayout, marker, "is both at the top level and in %s: zip one package, with its %s at the top or in a single folder", yamlIn[0], marker)
	case atTop:
		return "", nil
	case len(yamlIn) == 1 && len(folders) == 1 && len(files) == 0:
		return yamlIn[0], nil
	case len(yamlIn) > 1:
		return "", invalid(ErrLayout, "", "the zip holds several packages (%s in %s): upload one package per problem", marker, list(yamlIn))
	}
	var kinds []string
	if len(folders) > 0 {
		kinds = append(kinds, "folders "+list(folders))
	}
	if len(files) > 0 {
		kinds = append(kinds, "files "+list(files))
	}
	found := "nothing"
	if len(kinds) > 0 {
		found = strings.Join(kinds, " and ")
	}
	where := "at the top level"
	if len(folders) == 1 {
		where = "at the top level or in " + folders[0]
	}
	if len(yamlIn) == 1 {
		return "", invalid(ErrLayout, marker, "is in %s, but the zip holds more than that folder (%s): zip the folder alone or the package's content", yamlIn[0], found)
	}
	return "", invalid(ErrMissingFile, marker, "the package has no %s %s; the zip holds %s", marker, where, found)
}

// zipEntry is an entry's validated name (a directory's without its trailing '/').
type zipEntry struct {
	name string
	dir  bool
}

// place maps an entry's name in the zip to its name in the package under root; false
// for the root folder itself and for what lies outside it (left-out names beside it).
func place(root, name string) (string, bool) {
	if root == "" {
		return name, true
	}
	rest, ok := strings.CutPrefix(name, root)
	return rest, ok && rest != ""
}

// list names at most five items.
func list(items []string) string {
	const most = 5
	if len(items) > most {
		return fmt.Sprintf("%s and %d more", strings.Join(items[:most], ", "), len(items)-most)
	}
	return strings.Join(items, ", ")
}
