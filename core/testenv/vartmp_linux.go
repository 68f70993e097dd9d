package testenv

import (
	"bufio"
	"os"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"oj/sandbox/mountinfo"
)

// unmountUnder detaches every mount below dir, the deepest first.
func unmountUnder(dir string) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return
	}
	defer f.Close()
	var points []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// The fifth field is the mount point, with space, tab, newline and backslash
		// written as octal escapes.
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		p := mountinfo.Unescape(fields[4])
		if strings.HasPrefix(p, dir+"/") {
			points = append(points, p)
		}
	}
	slices.SortFunc(points, func(a, b string) int { return len(b) - len(a) })
	for _, p := range points {
		_ = unix.Unmount(p, unix.MNT_DETACH)
	}
}
