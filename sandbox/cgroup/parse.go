package cgroup

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"oj/sandbox/mountinfo"
)

// selfCgroups parses /proc/self/cgroup into controller → path. The v2 entry ("0::/x")
// is stored under the key "".
func selfCgroups(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			out[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out, sc.Err()
}

// mountPoint is one cgroup mount from /proc/self/mountinfo.
type mountPoint struct {
	root, dir string
	v2        bool
	opts      []string // super options: the controllers of a v1 hierarchy
}

// cgroupMounts parses /proc/self/mountinfo and returns the cgroup and cgroup2 mounts.
func cgroupMounts(r io.Reader) ([]mountPoint, error) {
	var out []mountPoint
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		sep := -1
		for i, x := range f {
			if x == "-" {
				sep = i
				break
			}
		}
		if sep < 5 || sep+3 > len(f) {
			continue
		}
		fstype := f[sep+1]
		if fstype != "cgroup" && fstype != "cgroup2" {
			continue
		}
		out = append(out, mountPoint{
			root: mountinfo.Unescape(f[3]),
			dir:  mountinfo.Unescape(f[4]),
			v2:   fstype == "cgroup2",
			opts: strings.Split(f[sep+3], ","),
		})
	}
	return out, sc.Err()
}

// flatKeyed reads one key of a "key value" file (cpu.stat, memory.events,
// memory.oom_control, memory.stat).
func flatKeyed(data, key string) (int64, error) {
	for _, line := range strings.Split(data, "\n") {
		k, v, ok := strings.Cut(line, " ")
		if ok && k == key {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("parse %s: %w", key, err)
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("no %s", key)
}

// parseInt parses a single-number file ("max" is -1).
func parseInt(data string) (int64, error) {
	s := strings.TrimSpace(data)
	if s == "max" {
		return -1, nil
	}
	return strconv.ParseInt(s, 10, 64)
}
