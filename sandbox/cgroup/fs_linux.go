package cgroup

import (
	"io"
	"os"
	"syscall"
)

// fsys is the handful of cgroupfs operations whose behaviour is the kernel's (a mkdir
// that fills the directory, an rmdir that refuses while processes exit, files whose
// writes mean something). The real one is plain system calls; tests give the v2 logic
// a fake cgroupfs of plain files in a temporary directory.
type fsys interface {
	Mkdir(dir string) error
	Rmdir(dir string) error
	// OpenFile opens a control file with os.O_RDONLY, os.O_WRONLY or os.O_RDWR.
	OpenFile(name string, flag int) (cgFile, error)
}

// cgFile is an open control file. Reads and writes are whole values at offset 0.
type cgFile interface {
	io.ReaderAt
	io.WriterAt
	io.Closer
}

type osFS struct{}

func (osFS) Mkdir(dir string) error { return os.Mkdir(dir, 0o755) }

// Rmdir returns the bare errno (rmdirRetry names the directory).
func (osFS) Rmdir(dir string) error { return syscall.Rmdir(dir) }

func (osFS) OpenFile(name string, flag int) (cgFile, error) {
	f, err := os.OpenFile(name, flag, 0)
	if err != nil {
		return nil, err // a nil *os.File must not become a non-nil cgFile
	}
	return f, nil
}

// readAll reads a whole (small) control file.
func readAll(fs fsys, name string) (string, error) {
	f, err := fs.OpenFile(name, os.O_RDONLY)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var buf [4096]byte
	n, err := f.ReadAt(buf[:], 0)
	if n == 0 && err != nil && err != io.EOF {
		return "", err
	}
	return string(buf[:n]), nil
}

// writeOnce writes one value to a control file.
func writeOnce(fs fsys, name, val string) error {
	f, err := fs.OpenFile(name, os.O_WRONLY)
	if err != nil {
		return err
	}
	_, err = f.WriteAt([]byte(val), 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
