package cgroup

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// node is what every kind of group has in common: its directories, the control files
// it keeps open (so that polling a counter is one read, and so that a v2 memory.peak
// reset through a descriptor is read back through the same one), the cgroup.procs
// descriptors handed to a run's child, and removal.
type node struct {
	fs    fsys
	dirs  map[string]string // v1 controller → dir; v2: "" → the one dir
	cpu   cgFile            // cpuacct.usage or cpu.stat, kept open for polling
	files map[string]cgFile
	procs []*os.File

	mu   sync.Mutex
	gone bool
}

// mkdirs creates the directory name under each parent (controller → dir), recording
// each one made so that destroy removes it whatever fails after.
func (n *node) mkdirs(parents map[string]string, name string) error {
	for c, p := range parents {
		d := filepath.Join(p, name)
		if err := n.ops().Mkdir(d); err != nil {
			return fmt.Errorf("create cgroup: %w", err)
		}
		n.dirs[c] = d
	}
	return nil
}

// openCPU opens controller c's CPU usage file for polling.
func (n *node) openCPU(c, name string) error {
	f, err := n.ops().OpenFile(filepath.Join(n.dirs[c], name), os.O_RDONLY)
	if err != nil {
		return fmt.Errorf("open cgroup cpu usage: %w", err)
	}
	n.cpu = f
	return nil
}

// readCPU reads the whole CPU usage file kept open by openCPU.
func (n *node) readCPU() (string, error) {
	var buf [512]byte
	k, err := n.cpu.ReadAt(buf[:], 0)
	if k == 0 && err != nil {
		return "", fmt.Errorf("read cgroup cpu: %w", err)
	}
	return string(buf[:k]), nil
}

// ops returns the group's cgroupfs (the real one unless a test gave another).
func (n *node) ops() fsys {
	if n.fs == nil {
		return osFS{}
	}
	return n.fs
}

// file returns controller c's file name, opened once read-write (or read-only where
// the kernel refuses writing) and kept for the group's life.
func (n *node) file(c, name string) (cgFile, error) {
	key := c + "/" + name
	if f, ok := n.files[key]; ok {
		return f, nil
	}
	p := filepath.Join(n.dirs[c], name)
	f, err := n.ops().OpenFile(p, os.O_RDWR)
	if err != nil {
		f, err = n.ops().OpenFile(p, os.O_RDONLY)
	}
	if err != nil {
		return nil, fmt.Errorf("cgroup %s: %w", name, err)
	}
	if n.files == nil {
		n.files = map[string]cgFile{}
	}
	n.files[key] = f
	return f, nil
}

func (n *node) put(c, name, val string) error {
	f, err := n.file(c, name)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt([]byte(val), 0); err != nil {
		return fmt.Errorf("cgroup %s: %w", name, err)
	}
	return nil
}

func (n *node) get(c, name string) (string, error) {
	f, err := n.file(c, name)
	if err != nil {
		return "", err
	}
	var buf [1024]byte
	k, err := f.ReadAt(buf[:], 0)
	if k == 0 && err != nil && err != io.EOF {
		return "", fmt.Errorf("cgroup %s: %w", name, err)
	}
	return string(buf[:k]), nil
}

func (n *node) charged(c, name string) (int64, error) {
	v, err := n.get(c, name)
	if err != nil {
		return 0, err
	}
	return parseInt(v)
}

// has reports whether controller c's directory has the file name (an optional
// interface file: memory.swap.max without swap accounting, cgroup.kill before 5.14).
func (n *node) has(c, name string) bool { return exists(filepath.Join(n.dirs[c], name)) }

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// procsFiles returns cgroup.procs of every directory, opened for writing once and
// owned by the node; a child that writes "0" to each joins the group itself, before
// exec, with no race.
func (n *node) procsFiles() ([]*os.File, error) {
	if n.procs != nil {
		return n.procs, nil
	}
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	for _, d := range n.dirs {
		cf, err := n.ops().OpenFile(filepath.Join(d, "cgroup.procs"), os.O_WRONLY)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("open cgroup.procs: %w", err)
		}
		f, ok := cf.(*os.File)
		if !ok {
			cf.Close()
			closeAll()
			return nil, errors.New("open cgroup.procs: not a file descriptor")
		}
		files = append(files, f)
	}
	n.procs = files
	return files, nil
}

// threads reads the thread ids listed in controller c's file name ("tasks" on v1,
// "cgroup.threads" on v2), opened afresh: a kept v1 descriptor does not see later
// changes.
func (n *node) threads(c, name string) ([]int, error) {
	f, err := n.ops().OpenFile(filepath.Join(n.dirs[c], name), os.O_RDONLY)
	if err != nil {
		return nil, fmt.Errorf("cgroup %s: %w", name, err)
	}
	defer f.Close()
	var b []byte
	for {
		b = slices.Grow(b, 4096)
		k, err := f.ReadAt(b[len(b):cap(b)], int64(len(b)))
		b = b[:len(b)+k]
		if err == io.EOF || k == 0 && err == nil {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("cgroup %s: %w", name, err)
		}
	}
	var tids []int
	for _, f := range strings.Fields(string(b)) {
		if tid, err := strconv.Atoi(f); err == nil && tid > 0 {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

// killListed sends SIGKILL to each pid listed in the cgroup.procs of every directory
// until none is left: the way to empty a group without cgroup.kill.
func (n *node) killListed() error {
	for range 100 {
		any := false
		for _, d := range n.dirs {
			b, err := readAll(n.ops(), filepath.Join(d, "cgroup.procs"))
			if err != nil {
				continue
			}
			for _, f := range strings.Fields(b) {
				if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
					any = true
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
		if !any {
			return nil
		}
		time.Sleep(time.Millisecond)
	}
	return errors.New("cgroup kill: processes keep appearing")
}

// How long Destroy retries EBUSY before killing what is left, and after (variables for
// the tests).
var removeWait, removeWaitKilled = 50 * time.Millisecond, 5 * time.Second

// destroy closes what the node keeps open and removes its directories, waiting out
// EBUSY while killed processes exit and calling kill when that is not enough. It is
// idempotent; after a failure a later call tries again. before, when not nil, goes
// first (a leaf group's current run, without which its directory cannot go): its
// failure stops the removal.
func (n *node) destroy(kill, before func() error) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.gone {
		return nil
	}
	if before != nil {
		if err := before(); err != nil {
			return err
		}
	}
	if n.cpu != nil {
		n.cpu.Close()
		n.cpu = nil
	}
	for k, f := range n.files {
		f.Close()
		delete(n.files, k)
	}
	for _, f := range n.procs {
		f.Close()
	}
	n.procs = nil
	var errs []error
	for _, d := range n.dirs {
		err := rmdirRetry(n.ops(), d, removeWait)
		if err != nil {
			_ = kill()
			err = rmdirRetry(n.ops(), d, removeWaitKilled)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		n.gone = true
	}
	return errors.Join(errs...)
}
