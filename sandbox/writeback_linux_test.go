package sandbox

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// runWB runs spec on the shared pool and returns Run's error too (a refused write-back
// is SE with an error, and then the program's captured output is not in the result:
// that the write-back met the tree it made is the proof that the program made it).
func runWB(t *testing.T, spec Spec) (Result, error) {
	t.Helper()
	spec.ReadOnly = append(spec.ReadOnly, bins)
	if spec.Limits.CPU == 0 {
		spec.Limits.CPU = 5 * time.Second
	}
	res, err := pool(t).Run(context.Background(), spec)
	t.Logf("%.80q: status %s exit %d cpu %v; stdout %.200q stderr %.200q error (%d bytes) %.300q",
		spec.Args, res.Status, res.ExitCode, res.CPU, res.Stdout, res.Stderr, len(res.Error), res.Error)
	return res, err
}

// listing describes every name under dir — type, mode, size, inode, link count, and a
// file's content hash or a symlink's target — so that two listings are equal only when
// nothing was added, removed, replaced (a new inode) or changed.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	hashes := map[uint64]string{} // by inode: a file with thousands of names is read once
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		st := info.Sys().(*syscall.Stat_t)
		rel, _ := filepath.Rel(dir, p)
		line := fmt.Sprintf("%s %v %d ino=%d links=%d", rel, info.Mode(), info.Size(), st.Ino, st.Nlink)
		switch {
		case info.Mode().IsRegular():
			if _, ok := hashes[st.Ino]; !ok {
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				hashes[st.Ino] = fmt.Sprintf("%x", sha256.Sum256(b))
			}
			line += " sha256=" + hashes[st.Ino]
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			line += " -> " + target
		}
		out = append(out, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// seed fills dir with a file, a directory holding a file, and a symlink.
func seed(t *testing.T, dir string) {
	t.Helper()
	for name, body := range map[string]string{"keep": "kept\n", "sub/inner": "inner\n"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("keep", filepath.Join(dir, "ln")); err != nil {
		t.Fatal(err)
	}
	// The run's uid writes to Dir's root (its overlay root is the run's), but the
	// seeded directory is root's: opened up so runs may write and remove in it.
	if err := os.Chmod(filepath.Join(dir, "sub"), 0o777); err != nil {
		t.Fatal(err)
	}
}

// assertRefused checks a run whose write-back was over a bound: SE, ErrWriteBackLimit,
// a short message naming the bound, and dir exactly as it was.
func assertRefused(t *testing.T, res Result, err error, dir string, before []string, bound string) {
	t.Helper()
	if res.Status != SE || !errors.Is(err, ErrWriteBackLimit) {
		t.Fatalf("status %s, err %v; want SE wrapping ErrWriteBackLimit", res.Status, err)
	}
	if !strings.Contains(res.Error, bound) {
		t.Errorf("message %q does not say %q", res.Error, bound)
	}
	if len(res.Error) > 300 {
		t.Errorf("message of %d bytes, want a short one: %.300q…", len(res.Error), res.Error)
	}
	if after := listing(t, dir); !slices.Equal(after, before) {
		t.Fatalf("the work dir changed:\nbefore %q\nafter  %q", before, after)
	}
}

// TestWriteBackHardLinks: a 5 MiB file with thousands of hard links comes back as one
// file with as many names (5 MiB on the host, not 5 MiB per name); with more names than
// the write-back's bound, nothing comes back and Dir is as it was.
func TestWriteBackHardLinks(t *testing.T) {
	t.Parallel()
	t.Run("kept as links", func(t *testing.T) {
		dir := t.TempDir()
		seed(t, dir)
		res, err := runWB(t, Spec{Args: []string{bin("writeback"), "links", "big", "5", "3000"}, Dir: dir})
		if err != nil || res.Status != OK || string(res.Stdout) != "linked\n" {
			t.Fatalf("status %s stdout %q err %v", res.Status, res.Stdout, err)
		}
		inodes := map[uint64]int64{}
		names := 0
		for _, l := range listing(t, dir) {
			names++
			var ino uint64
			var size int64
			f := strings.Fields(l)
			fmt.Sscanf(f[2], "%d", &size)
			fmt.Sscanf(f[3], "ino=%d", &ino)
			if f[1][0] == '-' {
				inodes[ino] = size
			}
		}
		var total int64
		for _, s := range inodes {
			total += s
		}
		st, err := os.Stat(filepath.Join(dir, "big.3000"))
		if err != nil {
			t.Fatal(err)
		}
		if n := st.Sys().(*syscall.Stat_t).Nlink; n != 3001 || total > 5*MiB+MiB {
			t.Fatalf("big has %d links and the host dir %d bytes of files; want 3001 links to one 5 MiB file", n, total)
		}
		t.Logf("%d names, %d inodes, %d bytes", names, len(inodes), total)
		assertNoStaging(t, dir)
	})
	t.Run("over the entry bound", func(t *testing.T) {
		dir := t.TempDir()
		seed(t, dir)
		before := listing(t, dir)
		res, err := runWB(t, Spec{Args: []string{bin("writeback"), "links", "big", "5", "12000"}, Dir: dir})
		assertRefused(t, res, err, dir, before, "more than 10000 entries")
	})
}

// TestWriteBackDeepTree: a tree 100 directories deep (200-byte names, a 20 KB path) is
// refused with a short message and Dir as it was; one 64 deep comes back.
func TestWriteBackDeepTree(t *testing.T) {
	t.Parallel()
	t.Run("100 deep", func(t *testing.T) {
		dir := t.TempDir()
		seed(t, dir)
		before := listing(t, dir)
		res, err := runWB(t, Spec{Args: []string{bin("writeback"), "deep", "100", "200"}, Dir: dir})
		assertRefused(t, res, err, dir, before, "directories nested deeper than 64")
	})
	t.Run("64 deep", func(t *testing.T) {
		dir := t.TempDir()
		res, err := runWB(t, Spec{Args: []string{bin("writeback"), "deep", "64", "3"}, Dir: dir})
		if err != nil || res.Status != OK {
			t.Fatalf("status %s err %v", res.Status, err)
		}
		if _, err := os.Stat(filepath.Join(dir, strings.Repeat("ddd/", 64)+"bottom")); err != nil {
			t.Fatal(err)
		}
		assertNoStaging(t, dir)
	})
}

// TestWriteBackBytesBound: sparse files (two of 60 MiB, stored in no space at all) over
// the run's byte bound (its work dir's 64 MiB) are refused before anything is copied.
func TestWriteBackBytesBound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	seed(t, dir)
	before := listing(t, dir)
	res, err := runWB(t, Spec{Args: []string{"sh", "-c", "echo new > keep2 && truncate -s 60M a b && echo made"}, Dir: dir})
	assertRefused(t, res, err, dir, before, "more than 67108864 bytes")
}

// TestWriteBackFailureMidwayRestores: a write-back that fails after it has changed part
// of Dir — here renaming a mount point away, which the kernel refuses, after replacing
// a file, adding one and removing one in a directory — puts everything back: same
// names, same contents, same inodes.
func TestWriteBackFailureMidwayRestores(t *testing.T) {
	dir := t.TempDir()
	seed(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("old a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(dir, "x-mount")
	if err := os.Mkdir(m, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", m, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(m, 0); err != nil {
			t.Error(err)
			_ = unix.Unmount(m, unix.MNT_DETACH)
		}
	})
	if err := os.WriteFile(filepath.Join(m, "on-the-mount"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := listing(t, dir)
	// In name order: a replaced, sub/new added and sub/inner removed, then x-mount (a
	// file over the mount point) fails, and y is never reached.
	script := "rm a && echo new a > a && echo new > sub/new && rm sub/inner && rmdir x-mount && echo file > x-mount && echo y > y"
	res, err := runWB(t, Spec{Args: []string{"sh", "-c", script}, Dir: dir})
	if res.Status != SE || err == nil || !strings.Contains(res.Error, `"x-mount"`) {
		t.Fatalf("status %s err %v; want SE failing at x-mount", res.Status, err)
	}
	if after := listing(t, dir); !slices.Equal(after, before) {
		t.Fatalf("the work dir changed:\nbefore %q\nafter  %q", before, after)
	}
	assertNoStaging(t, dir)
}

// TestWriteBackReplacesTrees: a directory the run removed goes with what it held, and
// one it removed and made again holds only what the run put in it.
func TestWriteBackReplacesTrees(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"gone/1", "gone/deeper/2", "remade/1", "remade/2"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"gone", "gone/deeper", "remade"} {
		if err := os.Chmod(filepath.Join(dir, d), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	res, err := runWB(t, Spec{Args: []string{"sh", "-c", "rm -r gone remade && mkdir remade && echo new > remade/new && echo done"}, Dir: dir})
	if err != nil || res.Status != OK || string(res.Stdout) != "done\n" {
		t.Fatalf("status %s stdout %q stderr %q err %v", res.Status, res.Stdout, res.Stderr, err)
	}
	got := strings.Join(listing(t, dir)[1:], "\n")
	if strings.Contains(got, "gone") || strings.Contains(got, "remade/1") || strings.Contains(got, "remade/2") || !strings.Contains(got, "remade/new") {
		t.Fatalf("the work dir holds:\n%s\nwant remade/new only", got)
	}
	assertNoStaging(t, dir)
}

func assertNoStaging(t *testing.T, dir string) {
	t.Helper()
	if left, _ := filepath.Glob(filepath.Join(dir, stagePrefix+"*")); len(left) > 0 {
		t.Fatalf("staging directory left: %v", left)
	}
}

// TestHostMountsUnderDirSurvive: a host mount below Spec.Dir or below a Spec.ReadOnly
// path stays mounted after the runs that saw it, on a host whose mounts are shared (as
// systemd makes them): the slot's copies of those trees are unmounted after a run (the
// work dir) or when the next run wants other paths (the read-only extras), and an
// unmount of a copy that is a peer of the host's mount propagates to the host.
func TestHostMountsUnderDirSurvive(t *testing.T) {
	p := onePool(t)
	// Not under /tmp: a read-only path there is refused (the run's own /tmp hides it).
	top, err := os.MkdirTemp("/var/tmp", "oj-writeback-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	mount := func(target, opts string, flags uintptr) {
		t.Helper()
		if err := os.MkdirAll(target, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := unix.Mount("tmpfs", target, "tmpfs", flags, opts); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := unix.Unmount(target, 0); err != nil {
				t.Errorf("unmount %s: %v", target, err)
				_ = unix.Unmount(target, unix.MNT_DETACH)
			}
		})
	}
	mount(top, "size=4m,mode=755", 0)
	if err := unix.Mount("", top, "", unix.MS_SHARED, ""); err != nil {
		t.Fatal(err)
	}
	box, ro := filepath.Join(top, "box"), filepath.Join(top, "ro")
	mount(filepath.Join(box, "sub"), "size=1m", 0)
	mount(filepath.Join(ro, "sub"), "size=1m", 0)
	mounted := func(p string) bool {
		var a, b unix.Stat_t
		return unix.Stat(p, &a) == nil && unix.Stat(filepath.Dir(p), &b) == nil && a.Dev != b.Dev
	}
	runIn(t, p, Spec{Args: []string{"true"}, Dir: box, DiscardWrites: true, ReadOnly: []string{ro}})
	runIn(t, p, Spec{Args: []string{"true"}}) // other extras: the slot unmounts ro's copy
	for _, m := range []string{filepath.Join(box, "sub"), filepath.Join(ro, "sub")} {
		if !mounted(m) {
			t.Errorf("%s is no longer mounted on the host", m)
		}
	}
}
