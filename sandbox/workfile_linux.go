package sandbox

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// ReadWorkFile reads up to max bytes of the regular file name inside a work dir after a
// run, refusing symlinks (at every level), magic links and anything that would resolve
// outside dir: a program can leave a symlink to /etc/shadow in its work dir, and a
// plain os.ReadFile by the judge (root) would follow it.
func ReadWorkFile(dir, name string, max int64) ([]byte, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("read work file: %w", err)
	}
	defer d.Close()
	fd, err := unix.Openat2(int(d.Fd()), name, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_NO_XDEV,
	})
	if err != nil {
		return nil, fmt.Errorf("read work file %s: %w", name, err)
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read work file %s: %w", name, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("read work file %s: not a regular file", name)
	}
	return io.ReadAll(io.LimitReader(f, max))
}
