// Package mountinfo reads /proc/self/mountinfo: which mounts there are, and the paths
// in it, where the kernel writes space, tab, newline and backslash as octal escapes.
package mountinfo

import (
	"bufio"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Unescape undoes mountinfo's octal escapes (\040 for a space and so on). A backslash
// not followed by three octal digits of a byte is kept as it is.
func Unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Mount is what a line of mountinfo says about one mount: where it is and what it is.
type Mount struct {
	Point  string // the mount point, unescaped
	FSType string // tmpfs, ext4, overlay, ...
}

// Parse reads mountinfo lines (proc(5): ID, parent ID, major:minor, root, mount point,
// options, optional fields, "-", type, source, super options), in mount order: of two
// mounts on one point, the later one hides the earlier.
func Parse(r io.Reader) ([]Mount, error) {
	var out []Mount
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		sep := slices.Index(fields, "-")
		if len(fields) < 5 || sep < 5 || sep+1 >= len(fields) {
			continue
		}
		out = append(out, Mount{Point: Unescape(fields[4]), FSType: fields[sep+1]})
	}
	return out, sc.Err()
}

// Read parses this process's /proc/self/mountinfo.
func Read() ([]Mount, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f)
}

// Below returns the mounts of ms strictly below dir, the deepest first: the order to
// unmount them in.
func Below(ms []Mount, dir string) []Mount {
	dir = strings.TrimSuffix(dir, "/")
	var out []Mount
	for _, m := range ms {
		if strings.HasPrefix(m.Point, dir+"/") {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b Mount) int { return len(b.Point) - len(a.Point) })
	return out
}
