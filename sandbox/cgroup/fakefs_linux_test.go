package cgroup

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// fakeFS is a cgroup v2 filesystem of plain files in a temporary directory, with the
// kernel behaviour the v2 logic depends on: mkdir fills a cgroup with its files (the
// memory.* and pids.* ones only where the parent enabled the controller), a child's
// cgroup.controllers is its parent's cgroup.subtree_control, every write replaces the
// value, memory.peak is resettable, read-only or missing as on 6.12+, 5.19–6.11 and
// 5.10–5.18, rmdir refuses (EBUSY) a cgroup with processes or children or one told to
// stay busy, cgroup.kill empties a subtree, and "no internal processes" holds.
type fakeFS struct {
	root string
	peak string // "reset", "readonly", "none" or "ignored" (write accepted, no effect)

	mu    sync.Mutex
	procs map[string]int // processes per cgroup dir
	busy  map[string]int // further rmdir calls of dir that fail with EBUSY (-1: always)
	ops   []string       // mkdir/rmdir/write log, paths relative to root
}

func newFakeFS(t *testing.T, peak string) (*fakeFS, string) {
	t.Helper()
	f := &fakeFS{root: t.TempDir(), peak: peak, procs: map[string]int{}, busy: map[string]int{}}
	// The pool's cgroup: memory and pids enabled for its children, as enableV2 leaves it.
	parent := filepath.Join(f.root, "pool")
	f.populate(parent, "cpu io memory pids")
	f.set(parent, "cgroup.subtree_control", "memory pids\n")
	return f, parent
}

func (f *fakeFS) rel(p string) string { r, _ := filepath.Rel(f.root, p); return r }

func (f *fakeFS) set(dir, name, val string) {
	if err := os.WriteFile(filepath.Join(dir, name), []byte(val), 0o644); err != nil {
		panic(err)
	}
}

func (f *fakeFS) get(dir, name string) string {
	b, _ := os.ReadFile(filepath.Join(dir, name))
	return strings.TrimSpace(string(b))
}

func (f *fakeFS) populate(dir, controllers string) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		panic(err)
	}
	files := map[string]string{
		"cgroup.controllers": controllers + "\n", "cgroup.subtree_control": "\n",
		"cgroup.procs": "", "cgroup.events": "populated 0\nfrozen 0\n", "cgroup.kill": "",
		"cpu.stat": "usage_usec 0\nuser_usec 0\nsystem_usec 0\n",
	}
	have := strings.Fields(controllers)
	if slices.Contains(have, "memory") {
		for k, v := range map[string]string{
			"memory.current": "0\n", "memory.max": "max\n", "memory.swap.max": "max\n",
			"memory.oom.group": "0\n", "memory.reclaim": "",
			"memory.events": "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n",
		} {
			files[k] = v
		}
		if f.peak != "none" {
			files["memory.peak"] = "0\n"
		}
	}
	if slices.Contains(have, "pids") {
		files["pids.max"], files["pids.current"] = "max\n", "0\n"
	}
	for k, v := range files {
		f.set(dir, k, v)
	}
}

func (f *fakeFS) log(op string) {
	f.mu.Lock()
	f.ops = append(f.ops, op)
	f.mu.Unlock()
}

func (f *fakeFS) Mkdir(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return &os.PathError{Op: "mkdir", Path: dir, Err: syscall.EEXIST}
	}
	f.populate(dir, f.get(filepath.Dir(dir), "cgroup.subtree_control"))
	f.log("mkdir " + f.rel(dir))
	return nil
}

func (f *fakeFS) Rmdir(dir string) error {
	f.log("rmdir " + f.rel(dir))
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := os.Stat(dir); err != nil {
		return syscall.ENOENT
	}
	if n := f.busy[dir]; n != 0 {
		if n > 0 {
			f.busy[dir]--
		}
		return syscall.EBUSY
	}
	if f.procs[dir] > 0 {
		return syscall.EBUSY
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.IsDir() {
			return syscall.EBUSY
		}
	}
	return os.RemoveAll(dir)
}

// join puts a process in dir as the child's write of "0" to cgroup.procs would.
func (f *fakeFS) join(dir string) error {
	if f.get(dir, "cgroup.subtree_control") != "" {
		return syscall.EBUSY // no internal processes
	}
	f.mu.Lock()
	f.procs[dir]++
	f.mu.Unlock()
	f.set(dir, "cgroup.events", "populated 1\nfrozen 0\n")
	return nil
}

// exit ends every process of dir.
func (f *fakeFS) exit(dir string) {
	f.mu.Lock()
	delete(f.procs, dir)
	f.mu.Unlock()
	f.set(dir, "cgroup.events", "populated 0\nfrozen 0\n")
}

func (f *fakeFS) OpenFile(name string, flag int) (cgFile, error) {
	base := filepath.Base(name)
	if base == "memory.peak" && f.peak == "readonly" && flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		return nil, &os.PathError{Op: "open", Path: name, Err: syscall.EACCES}
	}
	file, err := os.OpenFile(name, flag, 0)
	if err != nil {
		return nil, err
	}
	if base == "cgroup.procs" {
		return file, nil // handed to the child as a descriptor
	}
	return &fakeFile{File: file, fs: f, name: name}, nil
}

type fakeFile struct {
	*os.File
	fs   *fakeFS
	name string
}

func (ff *fakeFile) WriteAt(p []byte, off int64) (int, error) {
	f, dir, val := ff.fs, filepath.Dir(ff.name), strings.TrimSpace(string(p))
	f.log(fmt.Sprintf("write %s %s", f.rel(ff.name), val))
	switch filepath.Base(ff.name) {
	case "memory.peak":
		if f.peak == "ignored" {
			return len(p), nil
		}
		// The peak restarts at the current usage.
		val = f.get(dir, "memory.current")
	case "cgroup.kill":
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				f.exit(p)
			}
			return nil
		})
		return len(p), nil
	case "cgroup.subtree_control":
		f.mu.Lock()
		internal := f.procs[dir] > 0
		f.mu.Unlock()
		if internal {
			return 0, syscall.EBUSY
		}
		on := strings.Fields(f.get(dir, "cgroup.subtree_control"))
		for _, c := range strings.Fields(val) {
			name := c[1:]
			if !slices.Contains(strings.Fields(f.get(dir, "cgroup.controllers")), name) {
				return 0, syscall.ENOENT
			}
			if c[0] == '+' && !slices.Contains(on, name) {
				on = append(on, name)
			}
		}
		slices.Sort(on)
		val = strings.Join(on, " ")
	}
	if err := ff.Truncate(0); err != nil {
		return 0, err
	}
	if _, err := ff.File.WriteAt([]byte(val+"\n"), 0); err != nil {
		return 0, err
	}
	return len(p), nil
}

func fakeManager(f *fakeFS, parent string) *Manager {
	m := &Manager{v2: true, fs: f, parents: map[string]string{"": parent}}
	m.probe()
	return m
}

// fakeSlot is a slot's group ("slot-0") on a fake v2 hierarchy whose memory.peak
// behaves as peak says, destroyed when the test ends, and its directory.
func fakeSlot(t *testing.T, peak string) (*fakeFS, Group, string) {
	t.Helper()
	f, parent := newFakeFS(t, peak)
	g, err := fakeManager(f, parent).Create("slot-0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Destroy() })
	return f, g, filepath.Join(parent, "slot-0")
}

const MiB = 1 << 20

// simulateRun charges a run to dir: CPU and events are cumulative counters in the
// kernel, so the caller passes the values as the kernel would show them.
func simulateRun(t *testing.T, f *fakeFS, dir string, cpuUsec, peak int64, events string) {
	t.Helper()
	if err := f.join(dir); err != nil {
		t.Fatalf("join %s: %v", dir, err)
	}
	f.set(dir, "cpu.stat", fmt.Sprintf("usage_usec %d\nuser_usec %d\nsystem_usec 0\n", cpuUsec, cpuUsec))
	if f.peak != "none" {
		f.set(dir, "memory.peak", fmt.Sprintf("%d\n", peak))
	}
	f.set(dir, "memory.current", "0\n")
	f.set(dir, "memory.events", events)
	f.exit(dir)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// destroyTwice checks that Destroy removes dir and that a second call is a no-op.
func destroyTwice(t *testing.T, g Group, dir string) {
	t.Helper()
	for range 2 {
		if err := g.Destroy(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(dir); err == nil {
		t.Fatalf("%s left after Destroy", dir)
	}
}
