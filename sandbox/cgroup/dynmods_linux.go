package cgroup

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"oj/sandbox/mountinfo"
)

// FavorDynmods sets the favordynmods option of the host's cgroup2 superblock (Linux ≥
// 6.0). Without it, every move of a process into a cgroup — each sandboxed run joins
// its slot's cgroups — waits for an RCU grace period whenever the previous move was
// more than a grace period ago, which is the case between judged runs: about 12 ms per
// run measured on a 2-core host (v1 and v2 alike: the lock is the kernel's, whatever
// the hierarchy), against 0.2 ms with the option. The price, paid host-wide, is a
// slightly slower fork and exit. The option lives in the one cgroup2 superblock, so a
// v1 host with a cgroup2 mount (/sys/fs/cgroup/unified) gets it too.
//
// The remount keeps the mount's own flags (nosuid, nodev, noexec, …) and the
// superblock's other options (nsdelegate, memory_recursiveprot, …): the old mount API
// clears whatever a remount does not repeat.
func FavorDynmods() (Dynmods, error) {
	m, ok, err := cgroup2Mount()
	if err != nil || !ok {
		return Dynmods{}, err
	}
	d := Dynmods{Mount: m.point}
	if m.hasSuper("favordynmods") {
		d.Already = true
		return d, nil
	}
	var opts []string
	for _, o := range m.super {
		if o != "rw" && o != "ro" {
			opts = append(opts, o)
		}
	}
	opts = append(opts, "favordynmods")
	if err := unix.Mount("", m.point, "", unix.MS_REMOUNT|m.flags, strings.Join(opts, ",")); err != nil {
		return d, fmt.Errorf("cgroup: remount %s with favordynmods: %w", m.point, err)
	}
	if m, ok, err := cgroup2Mount(); err != nil || !ok || !m.hasSuper("favordynmods") {
		return d, fmt.Errorf("cgroup: %s: favordynmods did not take (kernel before 6.0?)", d.Mount)
	}
	d.Enabled = true
	return d, nil
}

type mountEntry struct {
	point string
	flags uintptr  // the per-mount flags, as the old mount API wants them back
	super []string // the superblock's options
}

func (m mountEntry) hasSuper(opt string) bool {
	for _, o := range m.super {
		if o == opt {
			return true
		}
	}
	return false
}

// mountFlags are the per-mount options of mountinfo that a remount must repeat.
var mountFlags = map[string]uintptr{
	"ro": unix.MS_RDONLY, "nosuid": unix.MS_NOSUID, "nodev": unix.MS_NODEV, "noexec": unix.MS_NOEXEC,
	"noatime": unix.MS_NOATIME, "nodiratime": unix.MS_NODIRATIME, "relatime": unix.MS_RELATIME,
	"strictatime": unix.MS_STRICTATIME, "nosymfollow": unix.MS_NOSYMFOLLOW,
}

// cgroup2Mount finds the first cgroup2 mount of /proc/self/mountinfo.
func cgroup2Mount() (mountEntry, bool, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return mountEntry{}, false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if m, ok := parseMountinfo(sc.Text()); ok {
			return m, true, nil
		}
	}
	return mountEntry{}, false, sc.Err()
}

// parseMountinfo reads one mountinfo line ("36 25 0:30 / /sys/fs/cgroup rw,nosuid,nodev
// shared:9 - cgroup2 cgroup2 rw,nsdelegate") and returns it when it is a cgroup2 mount.
func parseMountinfo(line string) (mountEntry, bool) {
	left, right, ok := strings.Cut(line, " - ")
	if !ok {
		return mountEntry{}, false
	}
	lf, rf := strings.Fields(left), strings.Fields(right)
	if len(lf) < 6 || len(rf) < 3 || rf[0] != "cgroup2" {
		return mountEntry{}, false
	}
	m := mountEntry{point: mountinfo.Unescape(lf[4]), super: strings.Split(rf[2], ",")}
	for _, o := range strings.Split(lf[5], ",") {
		m.flags |= mountFlags[o]
	}
	return m, true
}
