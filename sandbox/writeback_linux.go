package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"oj/sandbox/ns"
)

// maxWriteBackDepth bounds how deep write-back follows the directories a run made.
const maxWriteBackDepth = 64

// writeBack copies what a run wrote over its work dir (the upper tmpfs's data
// directory) into dir: regular files (permission bits only, never set-id), directories
// and symlinks (as symlinks: nothing is followed on either side), and removals
// (overlayfs whiteouts) of files or empty directories. The copies are made by this
// process, so they are charged to the caller's cgroup, not to the slot's; the run's
// own pages go when the upper tmpfs is closed.
func writeBack(upper *os.File, dir string) error {
	src, err := openDirBeneath(int(upper.Fd()), ns.UpperData)
	if err != nil {
		return err
	}
	defer unix.Close(src)
	dst, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, err)
	}
	defer unix.Close(dst)
	return copyTree(src, dst, dir, 0)
}

// openDirBeneath opens the directory name under the directory fd without following a
// symlink or leaving the filesystem.
func openDirBeneath(fd int, name string) (int, error) {
	d, err := unix.Openat2(fd, name, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_NO_XDEV,
	})
	if err != nil {
		return -1, fmt.Errorf("open %s: %w", name, err)
	}
	return d, nil
}

func copyTree(src, dst int, path string, depth int) error {
	if depth > maxWriteBackDepth {
		return fmt.Errorf("%s: directories nested deeper than %d", path, maxWriteBackDepth)
	}
	names, err := readNames(src)
	if err != nil {
		return fmt.Errorf("list %s: %w", path, err)
	}
	for _, name := range names {
		var st unix.Stat_t
		if err := unix.Fstatat(src, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return fmt.Errorf("stat %s: %w", filepath.Join(path, name), err)
		}
		p := filepath.Join(path, name)
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			err = copyDir(src, dst, name, p, st.Mode&0o777, depth)
		case unix.S_IFREG:
			err = copyRegular(src, dst, name, st.Mode&0o777)
		case unix.S_IFLNK:
			err = copySymlink(src, dst, name)
		case unix.S_IFCHR:
			if st.Rdev == 0 { // a whiteout: the run removed name
				if unix.Unlinkat(dst, name, 0) != nil {
					_ = unix.Unlinkat(dst, name, unix.AT_REMOVEDIR)
				}
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return nil
}

func readNames(fd int) ([]string, error) {
	d, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(d), ".")
	defer f.Close()
	return f.Readdirnames(-1)
}

// replaceable removes dst's entry name unless it is a directory and keepDir is set.
func replaceable(dst int, name string, keepDir bool) error {
	var st unix.Stat_t
	if err := unix.Fstatat(dst, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		if keepDir {
			return nil
		}
		return unix.Unlinkat(dst, name, unix.AT_REMOVEDIR)
	}
	return unix.Unlinkat(dst, name, 0)
}

func copyDir(src, dst int, name, path string, mode uint32, depth int) error {
	if err := replaceable(dst, name, true); err != nil {
		return err
	}
	if err := unix.Mkdirat(dst, name, mode); err != nil && !errors.Is(err, unix.EEXIST) {
		return err
	}
	if err := unix.Fchmodat(dst, name, mode, 0); err != nil {
		return err
	}
	s, err := unix.Openat(src, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(s)
	d, err := unix.Openat(dst, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(d)
	return copyTree(s, d, path, depth+1)
}

func copyRegular(src, dst int, name string, mode uint32) error {
	s, err := unix.Openat(src, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	in := os.NewFile(uintptr(s), name)
	defer in.Close()
	if err := replaceable(dst, name, false); err != nil {
		return err
	}
	d, err := unix.Openat(dst, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
	if err != nil {
		return err
	}
	out := os.NewFile(uintptr(d), name)
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Chmod(os.FileMode(mode)); err != nil { // the umask took some bits
		out.Close()
		return err
	}
	return out.Close()
}

func copySymlink(src, dst int, name string) error {
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(src, name, buf)
	if err != nil {
		return err
	}
	if err := replaceable(dst, name, false); err != nil {
		return err
	}
	return unix.Symlinkat(string(buf[:n]), dst, name)
}
