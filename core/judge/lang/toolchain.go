package lang

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Missing is a language whose toolchain this host cannot provide to the sandbox.
type Missing struct {
	Language string
	Path     string
	Reason   string
}

func (m Missing) String() string { return fmt.Sprintf("%s: %s: %s", m.Language, m.Path, m.Reason) }

// CheckToolchains reports, for every language, the programs and read-only paths that are
// absent or that an unprivileged user (the sandbox's uid) cannot reach: every directory
// on the way must be searchable by others and the program executable by others. A
// program under /root (mode 0700, e.g. rustup's) is reported although root sees it.
func (s *Set) CheckToolchains() []Missing {
	var out []Missing
	for _, l := range s.All() {
		out = append(out, l.checkToolchain()...)
	}
	return out
}

func (l *Language) checkToolchain() []Missing {
	var out []Missing
	seen := map[string]bool{}
	check := func(p string, program bool) {
		if p == "" || seen[p] || !filepath.IsAbs(p) {
			return
		}
		seen[p] = true
		if why := unusable(p, program); why != "" {
			out = append(out, Missing{Language: l.ID, Path: p, Reason: why})
		}
	}
	if len(l.Compile) > 0 {
		check(l.Compile[0], true)
	}
	check(l.Run[0], true)
	for _, p := range l.ReadOnlyPaths {
		check(p, false)
	}
	return out
}

// unusable explains why p is not usable by an unprivileged uid, or returns "".
func unusable(p string, program bool) string {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "not found"
	}
	for _, q := range []string{p, real} {
		if why := reachable(q); why != "" {
			return why
		}
	}
	st, err := os.Stat(real)
	if err != nil {
		return "not found"
	}
	if program {
		if !st.Mode().IsRegular() {
			return "not a regular file"
		}
		if st.Mode().Perm()&0o001 == 0 {
			return fmt.Sprintf("%s is not executable by others (mode %v)", real, st.Mode().Perm())
		}
	} else if st.IsDir() && st.Mode().Perm()&0o005 != 0o005 {
		return fmt.Sprintf("%s is not readable by others (mode %v)", real, st.Mode().Perm())
	}
	return ""
}

// reachable checks that every ancestor directory of p is searchable by others.
func reachable(p string) string {
	dir := filepath.Dir(p)
	for {
		st, err := os.Stat(dir)
		if err != nil {
			return "not found"
		}
		if st.Mode().Perm()&fs.FileMode(0o001) == 0 {
			return fmt.Sprintf("directory %s is not searchable by others (mode %v)", dir, st.Mode().Perm())
		}
		if dir == "/" || !strings.Contains(dir, "/") {
			return ""
		}
		dir = filepath.Dir(dir)
	}
}
