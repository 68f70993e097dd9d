package judge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"oj/sandbox/mountinfo"
)

// mountTasks makes tasksDir, in workDir, a tmpfs of size bytes (size 0: a plain
// directory) and returns, for the log, what it found of a predecessor's: a worker killed
// before its shutdown (SIGKILL, a crash) leaves its tasks tmpfs mounted. That tmpfs is
// reused, emptied of the old task directories and resized; anything else mounted below
// workDir — a tmpfs stacked on the tasks one, a mount inside it, any mount a worker of
// this size does not want — is detached. workDir itself may be a mount point (a disk of
// its own) and is left alone.
func mountTasks(workDir, tasksDir string, size int64) ([]string, error) {
	if err := os.MkdirAll(tasksDir, 0o711); err != nil {
		return nil, err
	}
	// mountinfo names mount points by their absolute paths without symlinks.
	var err error
	if workDir, err = realPath(workDir); err != nil {
		return nil, err
	}
	if tasksDir, err = realPath(tasksDir); err != nil {
		return nil, err
	}
	ms, err := mountinfo.Read()
	if err != nil {
		return nil, fmt.Errorf("list mounts: %w", err)
	}
	var onTasks []mountinfo.Mount
	for _, m := range ms {
		if m.Point == tasksDir {
			onTasks = append(onTasks, m)
		}
	}
	reuse := size > 0 && len(onTasks) == 1 && onTasks[0].FSType == "tmpfs"
	found, err := detachBelow(workDir, func(m mountinfo.Mount) bool { return reuse && m.Point == tasksDir })
	if err != nil {
		return found, err
	}
	if err := os.MkdirAll(tasksDir, 0o711); err != nil {
		return found, err
	}
	if size == 0 {
		return found, nil
	}
	opts := "size=" + strconv.FormatInt(size, 10)
	if reuse {
		if err := emptyDir(tasksDir); err != nil {
			return found, err
		}
		if err := unix.Mount("tmpfs", tasksDir, "tmpfs", unix.MS_REMOUNT|unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
			return found, fmt.Errorf("resize the tmpfs on %s: %w", tasksDir, err)
		}
		if err := os.Chmod(tasksDir, 0o711); err != nil {
			return found, err
		}
		return append(found, "reused the tasks tmpfs on "+tasksDir+" (emptied, size "+strconv.FormatInt(size, 10)+")"), nil
	}
	if err := unix.Mount("tmpfs", tasksDir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts+",mode=0711"); err != nil {
		return found, fmt.Errorf("mount tmpfs on %s: %w (the worker runs as root)", tasksDir, err)
	}
	return found, nil
}

// detachBelow detaches the mounts strictly below dir, the deepest first, except those
// keep names, and returns what it detached. A mount hidden under another one is reached
// once the upper one is gone: hence the passes.
func detachBelow(dir string, keep func(mountinfo.Mount) bool) ([]string, error) {
	var done []string
	for pass := 0; ; pass++ {
		ms, err := mountinfo.Read()
		if err != nil {
			return done, fmt.Errorf("list mounts: %w", err)
		}
		var left []string
		progress := false
		for _, m := range mountinfo.Below(ms, dir) {
			if keep(m) {
				continue
			}
			if err := unix.Unmount(m.Point, unix.MNT_DETACH); err != nil {
				left = append(left, m.Point)
				continue
			}
			progress = true
			done = append(done, "unmounted the "+m.FSType+" a previous worker left on "+m.Point)
		}
		if len(left) == 0 {
			return done, nil
		}
		if !progress || pass == 8 {
			return done, fmt.Errorf("cannot unmount what is mounted below %s: %s", dir, strings.Join(left, ", "))
		}
	}
}

func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// emptyDir removes everything in dir.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		errs = append(errs, os.RemoveAll(filepath.Join(dir, e.Name())))
	}
	return errors.Join(errs...)
}

// unmountTasks undoes mountTasks; tasks still in there are gone with it.
func unmountTasks(dir string, size int64) error {
	if size == 0 {
		return nil
	}
	if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
		return fmt.Errorf("unmount %s: %w", dir, err)
	}
	return nil
}

// growPipe asks for a pipe buffer of n bytes; best effort: a smaller pipe is only slower.
func growPipe(f *os.File, n int) {
	_, _ = unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, n)
}
