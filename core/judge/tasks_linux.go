package judge

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// mountTasks makes dir a tmpfs of size bytes (size 0: a plain directory). A tmpfs left
// mounted by a worker that died is reused after its old task directories are removed.
func mountTasks(dir string, size int64) error {
	if err := os.MkdirAll(dir, 0o711); err != nil {
		return err
	}
	if size == 0 {
		return nil
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return fmt.Errorf("statfs %s: %w", dir, err)
	}
	if st.Type == unix.TMPFS_MAGIC {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := os.RemoveAll(dir + "/" + e.Name()); err != nil {
				return err
			}
		}
		return nil
	}
	opts := "size=" + strconv.FormatInt(size, 10) + ",mode=0711"
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return fmt.Errorf("mount tmpfs on %s: %w (the worker runs as root)", dir, err)
	}
	return nil
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
