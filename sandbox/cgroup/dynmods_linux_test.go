package cgroup

import (
	"os"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParseMountinfo(t *testing.T) {
	for _, c := range []struct {
		line   string
		ok     bool
		dev    uint64
		point  string
		opts   string
		fstype string
		super  []string
	}{
		{"36 25 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot",
			true, unix.Mkdev(0, 30), "/sys/fs/cgroup", "rw,nosuid,nodev,noexec,relatime", "cgroup2", []string{"rw", "nsdelegate", "memory_recursiveprot"}},
		{"51 40 0:45 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw", true, unix.Mkdev(0, 45), "/sys/fs/cgroup/unified", "rw,relatime", "cgroup2", []string{"rw"}},
		{`60 25 0:50 / /run/my\040cgroups ro,nosuid - cgroup2 none rw,favordynmods`, true, unix.Mkdev(0, 50), "/run/my cgroups", "ro,nosuid", "cgroup2", []string{"rw", "favordynmods"}},
		{"37 25 259:3 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory", true, unix.Mkdev(259, 3), "/sys/fs/cgroup/memory", "rw,relatime", "cgroup", []string{"rw", "memory"}},
		{"garbage", false, 0, "", "", "", nil},
		{"1 2 3 - cgroup2", false, 0, "", "", "", nil},
		{"1 2 x:y / /a rw - tmpfs tmpfs rw", false, 0, "", "", "", nil},
	} {
		m, ok := parseMountinfo(c.line)
		if ok != c.ok || m.dev != c.dev || m.point != c.point || m.opts != c.opts || m.fstype != c.fstype || !slices.Equal(m.super, c.super) {
			t.Errorf("parseMountinfo(%q) = %+v, %v; want dev %#x point %q opts %q %s super %v, %v", c.line, m, ok, c.dev, c.point, c.opts, c.fstype, c.super, c.ok)
		}
	}
}

// TestFavorDynmods sets the option on this host's cgroup2 mount for real and checks that
// the remount kept the mount's flags and the superblock's other options.
func TestFavorDynmods(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	before, ok, err := cgroup2Mount()
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Skip("no cgroup2 mount on this host")
	}
	d, err := FavorDynmods()
	if err != nil {
		t.Fatal(err)
	}
	if d.Mount != before.point || !d.On() || d.Already == d.Enabled {
		t.Fatalf("FavorDynmods() = %+v; mount %s", d, before.point)
	}
	after, _, err := cgroup2Mount()
	if err != nil {
		t.Fatal(err)
	}
	if !after.hasSuper("favordynmods") || after.opts != before.opts {
		t.Fatalf("after: mount options %s super %v; before: mount options %s super %v", after.opts, after.super, before.opts, before.super)
	}
	for _, o := range before.super {
		if !after.hasSuper(o) {
			t.Fatalf("the remount dropped %q: before %v, after %v", o, before.super, after.super)
		}
	}
	if d2, err := FavorDynmods(); err != nil || !d2.Already {
		t.Fatalf("second call: %+v, %v; want Already", d2, err)
	}
	t.Logf("%s: %+v (super options %v)", d.Mount, d, after.super)
}
