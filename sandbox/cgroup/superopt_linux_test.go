package cgroup

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// scratchWithReadOnlyBind mounts a small tmpfs of its own at orig and a read-only bind
// of it at bind (the report's reproduction: a hierarchy whose first mount is a
// read-only bind), both private, and unmounts them when the test ends.
func scratchWithReadOnlyBind(t *testing.T) (orig, bind string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	dir := t.TempDir()
	orig, bind = filepath.Join(dir, "orig"), filepath.Join(dir, "bind")
	for _, d := range []string{orig, bind} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := unix.Mount("tmpfs", orig, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=1m,nr_inodes=100,mode=755"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unmount(t, orig) })
	if err := unix.Mount("", orig, "", unix.MS_PRIVATE, ""); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount(orig, bind, "", unix.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unmount(t, bind) })
	if err := unix.Mount("", bind, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		t.Fatal(err)
	}
	return orig, bind
}

func unmount(t *testing.T, p string) {
	if err := unix.Unmount(p, 0); err != nil {
		t.Errorf("unmount %s: %v", p, err)
		_ = unix.Unmount(p, unix.MNT_DETACH)
	}
}

// mountsAt returns the mountinfo entries at the given points, in that order.
func mountsAt(t *testing.T, points ...string) []mountEntry {
	t.Helper()
	all, err := readMountinfo()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]mountEntry, len(points))
	for i, p := range points {
		found := false
		for _, m := range all {
			if m.point == p {
				out[i], found = m, true
			}
		}
		if !found {
			t.Fatalf("no mount at %s", p)
		}
	}
	return out
}

func firstOpt(m mountEntry) string { o, _, _ := strings.Cut(m.opts, ","); return o }

// TestAddSuperOptionKeepsMountFlags: adding an option through the read-only bind (the
// mount a host-wide search may find first) changes the superblock's option and nothing
// else: the original stays read-write and writable, the bind stays read-only, each
// keeps its flags, and the superblock's other options stay.
func TestAddSuperOptionKeepsMountFlags(t *testing.T) {
	orig, bind := scratchWithReadOnlyBind(t)
	before := mountsAt(t, orig, bind)
	if firstOpt(before[0]) != "rw" || firstOpt(before[1]) != "ro" {
		t.Fatalf("setup: %s is %s, %s is %s", orig, before[0].opts, bind, before[1].opts)
	}
	if err := addSuperOption(bind, "nr_inodes=200"); err != nil {
		t.Fatal(err)
	}
	after := mountsAt(t, orig, bind)
	for i := range after {
		if after[i].opts != before[i].opts {
			t.Errorf("%s: mount options %s, were %s", after[i].point, after[i].opts, before[i].opts)
		}
		if want := withOption(before[i].super, "nr_inodes=200"); !slices.Equal(slices.Sorted(slices.Values(after[i].super)), slices.Sorted(slices.Values(want))) {
			t.Errorf("%s: superblock options %v, want %v", after[i].point, after[i].super, want)
		}
	}
	if err := os.WriteFile(filepath.Join(orig, "f"), []byte("x"), 0o644); err != nil {
		t.Errorf("the read-write original is no longer writable: %v", err)
	}
	if err := os.WriteFile(filepath.Join(bind, "g"), []byte("x"), 0o644); err == nil {
		t.Error("the read-only bind became writable")
	}
	t.Logf("before %v / %v; after %v / %v", before[0].opts, before[0].super, after[0].opts, after[0].super)
}

// TestAddSuperOptionFailureLeavesMounts: an option the filesystem refuses, and one that
// takes but does not read back as asked (tmpfs shows size=2m as size=2048k, so the
// check after the change fails and the old options are set back), both leave every
// mount and the superblock as they were.
func TestAddSuperOptionFailureLeavesMounts(t *testing.T) {
	orig, bind := scratchWithReadOnlyBind(t)
	before := mountsAt(t, orig, bind)
	for _, opt := range []string{"no_such_option", "size=2m"} {
		err := addSuperOption(orig, opt)
		if err == nil {
			t.Fatalf("addSuperOption(%s) succeeded", opt)
		}
		t.Logf("%s: %v", opt, err)
		if opt == "size=2m" && !strings.HasSuffix(err.Error(), "; reverted") {
			t.Errorf("%s: %v; want the change reverted", opt, err)
		}
		after := mountsAt(t, orig, bind)
		for i := range after {
			if after[i].opts != before[i].opts || !slices.Equal(after[i].super, before[i].super) {
				t.Errorf("after %s: %s has %s / %v, had %s / %v", opt, after[i].point, after[i].opts, after[i].super, before[i].opts, before[i].super)
			}
		}
	}
}
