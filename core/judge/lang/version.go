package lang

import (
	"bytes"
	"regexp"
	"strings"
)

// debianPackage is what Debian allows in a package name (Debian Policy 5.6.1), with an
// optional architecture qualifier.
var debianPackage = regexp.MustCompile(`^[a-z0-9][a-z0-9+.-]+(:[a-z0-9-]+)?$`)

// ParseVersion picks the version out of the version command's output: the first group of
// version_regexp (or its whole match), or the first non-empty line without one. "" when
// the output does not say.
func (l *Language) ParseVersion(output string) string {
	if l.versionRE == nil {
		for _, line := range strings.Split(output, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				return clipVersion(line)
			}
		}
		return ""
	}
	m := l.versionRE.FindStringSubmatch(output)
	switch {
	case m == nil:
		return ""
	case len(m) > 1:
		return clipVersion(m[1])
	}
	return clipVersion(m[0])
}

// clipVersion keeps a version short enough to sit in a name.
func clipVersion(v string) string {
	v = strings.TrimSpace(v)
	if len(v) > 64 {
		v = strings.ToValidUTF8(v[:64], "")
	}
	return v
}

// DisplayName is the language's name with {version} replaced by version; with no
// version, the placeholder goes and what it leaves (doubled spaces, "()") with it.
func (l *Language) DisplayName(version string) string {
	if !strings.Contains(l.Name, "{version}") {
		return l.Name
	}
	if version != "" {
		return strings.ReplaceAll(l.Name, "{version}", version)
	}
	n := strings.ReplaceAll(l.Name, "{version}", "")
	n = strings.Join(strings.Fields(n), " ")
	n = strings.ReplaceAll(strings.ReplaceAll(n, "( ", "("), " )", ")")
	n = strings.ReplaceAll(n, " ()", "")
	n = strings.ReplaceAll(n, "()", "")
	return strings.TrimSpace(n)
}

// IsOOM reports whether a failed run's stderr says the runtime ran out of memory.
func (l *Language) IsOOM(stderr []byte) bool {
	if l.OOMMarker != "" && bytes.Contains(stderr, []byte(l.OOMMarker)) {
		return true
	}
	for _, m := range l.OOMMarkers {
		if m != "" && bytes.Contains(stderr, []byte(m)) {
			return true
		}
	}
	return false
}
