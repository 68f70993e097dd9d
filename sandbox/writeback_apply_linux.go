package sandbox

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"
)

// stagePrefix starts the name of a write-back's staging directory inside Dir. It is
// removed before Run returns; one left behind means the worker died in a write-back.
const stagePrefix = ".oj-write-back-"

// applier applies a planned tree to a host directory all or nothing: everything new is
// first made in a staging directory on the destination's filesystem (copies, links,
// symlinks), then renamed into place, in tree order, with whatever it replaces moved
// into the staging directory rather than removed. Each node records what was done to
// it, so a failure anywhere is undone in reverse order; after success the staging
// directory, holding only what was replaced, is removed.
type applier struct {
	stage     int    // the staging directory
	stageName string // its name in the destination
	n         int    // names made in it so far
	path      []string
}

// apply applies root's tree, read from the directory src, to dst (the directory dir).
func apply(src, dst int, dir string, root *wbNode) error {
	a, err := newApplier(dst, root)
	if err != nil {
		return err
	}
	err = a.stageTree(src, root)
	if err == nil {
		err = a.commit(dst, root)
	}
	if err != nil {
		if rerr := a.rollback(dst, root); rerr != nil {
			// What the destination held may be in the staging directory: keep it.
			unix.Close(a.stage)
			return fmt.Errorf("%w; undoing it failed, so %s keeps what it replaced: %w", err, a.stageName, rerr)
		}
	}
	unix.Close(a.stage)
	if rerr := os.RemoveAll(filepath.Join(dir, a.stageName)); rerr != nil && err == nil {
		err = fmt.Errorf("applied, but the staging directory %s is left: %w", a.stageName, rerr)
	}
	return err
}

func newApplier(dst int, root *wbNode) (*applier, error) {
	for try := 0; ; try++ {
		name := stagePrefix + rand.Text()
		if slices.ContainsFunc(root.kids, func(n *wbNode) bool { return n.name == name }) {
			continue
		}
		err := unix.Mkdirat(dst, name, 0o700)
		if errors.Is(err, unix.EEXIST) && try < 3 {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("make a staging directory: %w", err)
		}
		fd, err := unix.Openat(dst, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			_ = unix.Unlinkat(dst, name, unix.AT_REMOVEDIR)
			return nil, fmt.Errorf("open the staging directory: %w", err)
		}
		return &applier{stage: fd, stageName: name}, nil
	}
}

func (a *applier) next() string {
	a.n++
	return strconv.Itoa(a.n)
}

func (a *applier) fail(op string, err error) error {
	return fmt.Errorf("%s %q: %w", op, shortPath(a.path), err)
}

// stageTree makes the files and symlinks of dir's tree (read from src) in the staging
// directory, a file with several names once and linked for the others.
func (a *applier) stageTree(src int, dir *wbNode) error {
	for _, n := range dir.kids {
		a.path = append(a.path, n.name)
		var err error
		switch n.kind {
		case wbDir:
			if err := a.stageDir(src, n); err != nil {
				return err
			}
		case wbFile:
			n.staged = a.next()
			if n.first != nil {
				err = unix.Linkat(a.stage, n.first.staged, a.stage, n.staged, 0)
			} else {
				err = a.copyFile(src, n)
			}
		case wbSymlink:
			n.staged = a.next()
			err = unix.Symlinkat(n.target, a.stage, n.staged)
		}
		if err != nil {
			return a.fail("copy", err)
		}
		a.path = a.path[:len(a.path)-1]
	}
	return nil
}

func (a *applier) stageDir(src int, n *wbNode) error {
	s, err := unix.Openat(src, n.name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return a.fail("open", err)
	}
	defer unix.Close(s)
	return a.stageTree(s, n)
}

// copyFile copies the planned size of n, no more: the plan's byte count is the bound.
func (a *applier) copyFile(src int, n *wbNode) error {
	s, err := unix.Openat(src, n.name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	in := os.NewFile(uintptr(s), n.name)
	defer in.Close()
	d, err := unix.Openat(a.stage, n.staged, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	out := os.NewFile(uintptr(d), n.staged)
	if _, err := io.CopyN(out, in, n.size); err != nil {
		out.Close()
		return err
	}
	if err := out.Chmod(os.FileMode(n.mode)); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// commit puts dir's tree in place under dst.
func (a *applier) commit(dst int, dir *wbNode) error {
	for _, n := range dir.kids {
		a.path = append(a.path, n.name)
		if err := a.commitOne(dst, n); err != nil {
			return err
		}
		a.path = a.path[:len(a.path)-1]
	}
	return nil
}

func (a *applier) commitOne(dst int, n *wbNode) error {
	var st unix.Stat_t
	exists := true
	if err := unix.Fstatat(dst, n.name, &st, unix.AT_SYMLINK_NOFOLLOW); errors.Is(err, unix.ENOENT) {
		exists = false
	} else if err != nil {
		return a.fail("stat", err)
	}
	// A directory is kept and merged into unless the run replaced it (opaque).
	keep := exists && n.kind == wbDir && st.Mode&unix.S_IFMT == unix.S_IFDIR && !n.opaque
	if exists && !keep {
		aside := a.next()
		if err := renameNoReplace(dst, n.name, a.stage, aside); err != nil {
			return a.fail("move aside", err)
		}
		n.aside = aside
	}
	switch n.kind {
	case wbFile, wbSymlink:
		if err := renameNoReplace(a.stage, n.staged, dst, n.name); err != nil {
			return a.fail("rename into place", err)
		}
		n.placed = true
	case wbDir:
		if !keep {
			if err := unix.Mkdirat(dst, n.name, 0o700); err != nil {
				return a.fail("mkdir", err)
			}
			n.placed = true
		}
		return a.enter(dst, n, keep, st.Mode&0o7777)
	}
	return nil
}

// enter gives the directory n at dst its mode and commits its tree; mode is the mode
// of the directory that was kept there.
func (a *applier) enter(dst int, n *wbNode, kept bool, mode uint32) error {
	sub, err := unix.Openat(dst, n.name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return a.fail("open", err)
	}
	defer unix.Close(sub)
	n.entered = true
	if !kept || mode != n.mode {
		if err := unix.Fchmod(sub, n.mode); err != nil {
			return a.fail("chmod", err)
		}
		n.oldMode, n.chmoded = mode, kept
	}
	return a.commit(sub, n)
}

// rollback undoes what commit did under dst, in reverse order.
func (a *applier) rollback(dst int, dir *wbNode) error {
	var errs []error
	for i := len(dir.kids) - 1; i >= 0; i-- {
		n := dir.kids[i]
		if n.entered {
			if sub, err := unix.Openat(dst, n.name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err != nil {
				errs = append(errs, err)
			} else {
				errs = append(errs, a.rollback(sub, n))
				if n.chmoded {
					errs = append(errs, unix.Fchmod(sub, n.oldMode))
				}
				unix.Close(sub)
			}
		}
		if n.placed {
			flags := 0
			if n.kind == wbDir {
				flags = unix.AT_REMOVEDIR
			}
			errs = append(errs, unix.Unlinkat(dst, n.name, flags))
		}
		if n.aside != "" {
			errs = append(errs, renameNoReplace(a.stage, n.aside, dst, n.name))
		}
	}
	return errors.Join(errs...)
}

// renameNoReplace renames, failing if the new name exists.
func renameNoReplace(olddir int, oldname string, newdir int, newname string) error {
	err := unix.Renameat2(olddir, oldname, newdir, newname, unix.RENAME_NOREPLACE)
	if !errors.Is(err, unix.EINVAL) {
		return err
	}
	// A filesystem without RENAME_NOREPLACE: nothing else writes the destination
	// during a write-back, so a check first is as good.
	var st unix.Stat_t
	if unix.Fstatat(newdir, newname, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		return unix.EEXIST
	}
	return unix.Renameat(olddir, oldname, newdir, newname)
}
