package cgroup

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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

func TestProbeDecidesResetOrLeaf(t *testing.T) {
	for _, c := range []struct {
		peak       string
		perRun     bool
		whyContain string
	}{
		{"reset", false, ""},
		{"readonly", true, "read-only"},
		{"none", true, "no memory.peak"},
		{"ignored", true, "after a reset"},
	} {
		t.Run(c.peak, func(t *testing.T) {
			f, parent := newFakeFS(t, c.peak)
			if c.peak != "none" {
				// The pool cgroup has seen more than it holds now.
				f.set(parent, "memory.peak", "536870912\n")
				f.set(parent, "memory.current", "4096\n")
			}
			m := fakeManager(f, parent)
			if m.PerRunLeaf() != c.perRun || !strings.Contains(m.perRunWhy, c.whyContain) {
				t.Fatalf("per-run leaf %v (%q), want %v (%q)", m.PerRunLeaf(), m.perRunWhy, c.perRun, c.whyContain)
			}
			if c.perRun && !strings.Contains(m.Mode(), "leaf") || !c.perRun && !strings.Contains(m.Mode(), "resettable") {
				t.Errorf("mode %q", m.Mode())
			}
		})
	}
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

func TestResetInPlaceReportsDeltas(t *testing.T) {
	f, parent := newFakeFS(t, "reset")
	m := fakeManager(f, parent)
	g, err := m.Create("slot-0")
	if err != nil {
		t.Fatal(err)
	}
	slot := filepath.Join(parent, "slot-0")
	lim := Limits{Memory: 256 * MiB, Pids: 16}
	// Run 1: 1 s of CPU, 100 MiB, one OOM kill after 3 limit hits.
	if err := g.Reset(lim); err != nil {
		t.Fatal(err)
	}
	if f.get(slot, "memory.max") != "268435456" || f.get(slot, "memory.swap.max") != "0" || f.get(slot, "pids.max") != "16" {
		t.Fatalf("limits not applied: %s %s %s", f.get(slot, "memory.max"), f.get(slot, "memory.swap.max"), f.get(slot, "pids.max"))
	}
	simulateRun(t, f, slot, 1_000_000, 100*MiB, "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
	st, err := g.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.CPU != time.Second || st.MemoryPeak != 100*MiB || st.OOMKills != 1 || st.LimitHits != 3 {
		t.Fatalf("run 1: %+v", st)
	}
	if err := g.Settle(); err != nil {
		t.Fatal(err)
	}
	// Run 2: 250 ms more CPU, a 10 MiB peak; the kernel's counters are cumulative.
	if err := g.Reset(lim); err != nil {
		t.Fatal(err)
	}
	if f.get(slot, "memory.peak") != "0" {
		t.Fatalf("memory.peak not restarted: %s", f.get(slot, "memory.peak"))
	}
	simulateRun(t, f, slot, 1_250_000, 10*MiB, "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
	if st, err = g.Stats(); err != nil {
		t.Fatal(err)
	}
	if st.CPU != 250*time.Millisecond || st.MemoryPeak != 10*MiB || st.OOMKills != 0 || st.LimitHits != 0 || st.NoPeak {
		t.Fatalf("run 2 must be its own: %+v", st)
	}
	if err := g.Settle(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(slot, leafName)); err == nil {
		t.Fatal("a leaf was created in reset mode")
	}
	if err := g.Destroy(); err != nil {
		t.Fatal(err)
	}
	if err := g.Destroy(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(slot); err == nil {
		t.Fatal("slot cgroup left")
	}
}

// TestResetFailsLoudly: in reset mode a refused peak reset is an error (the slot is
// rebuilt), never a silently cumulative peak.
func TestResetFailsLoudly(t *testing.T) {
	f, parent := newFakeFS(t, "reset")
	m := fakeManager(f, parent)
	g, err := m.Create("slot-0")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Destroy()
	f.peak = "readonly" // as if memory.peak stopped accepting writes
	if err := g.Reset(Limits{Memory: 64 * MiB}); err == nil {
		t.Fatal("Reset ignored a failed memory.peak reset")
	}
}

func TestPerRunLeafSequence(t *testing.T) {
	for _, peak := range []string{"readonly", "none"} {
		t.Run(peak, func(t *testing.T) {
			f, parent := newFakeFS(t, peak)
			m := fakeManager(f, parent)
			if !m.PerRunLeaf() {
				t.Fatal("want a leaf per run")
			}
			g, err := m.Create("slot-0")
			if err != nil {
				t.Fatal(err)
			}
			slot := filepath.Join(parent, "slot-0")
			leaf := filepath.Join(slot, leafName)
			if got := f.get(slot, "cgroup.subtree_control"); got != "memory pids" {
				t.Fatalf("slot subtree_control %q, want memory pids", got)
			}
			if _, err := g.ProcsFiles(); !errors.Is(err, errNoRun) {
				t.Fatalf("ProcsFiles outside a run: %v", err)
			}
			lim := Limits{Memory: 256 * MiB, Pids: 16}
			f.set(slot, "memory.peak", "0\n")
			runs := []struct {
				cpuUsec, peak int64
				events        string
				want          Stats
			}{
				{1_000_000, 200 * MiB, "max 3\noom 1\noom_kill 1\n", Stats{CPU: time.Second, MemoryPeak: 200 * MiB, OOMKills: 1, LimitHits: 3}},
				{250_000, 10 * MiB, "max 0\noom 0\noom_kill 0\n", Stats{CPU: 250 * time.Millisecond, MemoryPeak: 10 * MiB}},
			}
			for i, r := range runs {
				if err := g.Reset(lim); err != nil {
					t.Fatalf("run %d: %v", i, err)
				}
				for name, want := range map[string]string{"memory.max": "268435456", "memory.swap.max": "0", "memory.oom.group": "1", "pids.max": "16"} {
					if got := f.get(leaf, name); got != want {
						t.Errorf("run %d: leaf %s = %q, want %q", i, name, got, want)
					}
				}
				if f.get(slot, "memory.max") != "max" {
					t.Errorf("the slot got a limit: %s", f.get(slot, "memory.max"))
				}
				procs, err := g.ProcsFiles()
				if err != nil || len(procs) != 1 || procs[0].Name() != filepath.Join(leaf, "cgroup.procs") {
					t.Fatalf("run %d: procs %v, %v", i, procs, err)
				}
				// No internal processes: the slot refuses one, the leaf takes it.
				if err := f.join(slot); !errors.Is(err, syscall.EBUSY) {
					t.Fatalf("a process could join the slot itself: %v", err)
				}
				simulateRun(t, f, leaf, r.cpuUsec, r.peak, r.events)
				// The slot's own peak only grows (its cumulative value is never read).
				f.set(slot, "memory.peak", fmt.Sprintf("%d\n", 200*MiB))
				cpu, err := g.CPU()
				if err != nil || cpu != r.want.CPU {
					t.Fatalf("run %d: CPU %v, %v", i, cpu, err)
				}
				st, err := g.Stats()
				if err != nil {
					t.Fatal(err)
				}
				want := r.want
				if peak == "none" {
					want.MemoryPeak, want.NoPeak = 0, true // memory.current at the end
				}
				if st != want {
					t.Fatalf("run %d: %+v, want %+v", i, st, want)
				}
				if err := g.Settle(); err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(leaf); err == nil {
					t.Fatalf("run %d: leaf left after Settle", i)
				}
				if err := g.Settle(); err != nil { // idempotent
					t.Fatal(err)
				}
				if _, err := g.CPU(); !errors.Is(err, errNoRun) {
					t.Fatalf("CPU between runs: %v", err)
				}
			}
			if err := g.Destroy(); err != nil {
				t.Fatal(err)
			}
			if err := g.Destroy(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(slot); err == nil {
				t.Fatal("slot cgroup left")
			}
			var mk, rm int
			for _, op := range f.ops {
				mk += b2i(strings.HasPrefix(op, "mkdir pool/slot-0/run"))
				rm += b2i(op == "rmdir pool/slot-0/run")
			}
			if mk != 2 || rm != 2 {
				t.Fatalf("leaf mkdir %d, rmdir %d, want 2 and 2: %v", mk, rm, f.ops)
			}
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestPerRunLeafWaitsOutEBUSY: removal retries while killed processes finish exiting
// and kills what is still there; a leaf that cannot go stays recorded and is removed by
// the next Reset or by Destroy, never forgotten.
func TestPerRunLeafWaitsOutEBUSY(t *testing.T) {
	f, parent := newFakeFS(t, "readonly")
	m := fakeManager(f, parent)
	g, err := m.Create("slot-0")
	if err != nil {
		t.Fatal(err)
	}
	leaf := filepath.Join(parent, "slot-0", leafName)
	lim := Limits{Memory: 64 * MiB, Pids: 8}

	// Processes still exiting: a few EBUSY, then it goes.
	if err := g.Reset(lim); err != nil {
		t.Fatal(err)
	}
	f.busy[leaf] = 5
	if err := g.Settle(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(leaf); err == nil {
		t.Fatal("leaf left")
	}

	// A process that survived the run: killed through cgroup.kill, then removed.
	if err := g.Reset(lim); err != nil {
		t.Fatal(err)
	}
	if err := f.join(leaf); err != nil {
		t.Fatal(err)
	}
	if err := g.Settle(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(leaf); err == nil {
		t.Fatal("leaf left")
	}
	if !slices.Contains(f.ops, "write pool/slot-0/run/cgroup.kill 1") {
		t.Fatalf("no cgroup.kill: %v", f.ops)
	}

	// A leaf that will not go: Settle fails, the leaf stays recorded.
	defer func(a, b time.Duration) { removeWait, removeWaitKilled = a, b }(removeWait, removeWaitKilled)
	removeWait, removeWaitKilled = time.Millisecond, 5*time.Millisecond
	if err := g.Reset(lim); err != nil {
		t.Fatal(err)
	}
	f.busy[leaf] = -1
	if err := g.Settle(); err == nil || !errors.Is(err, syscall.EBUSY) {
		t.Fatalf("Settle of a stuck leaf: %v", err)
	}
	if g.(*v2LeafGroup).run == nil {
		t.Fatal("a stuck leaf was forgotten")
	}
	if err := g.Reset(lim); err == nil {
		t.Fatal("Reset over a stuck leaf succeeded")
	}
	if err := g.Destroy(); err == nil {
		t.Fatal("Destroy over a stuck leaf succeeded")
	}
	if _, err := os.Stat(filepath.Join(parent, "slot-0")); err != nil {
		t.Fatal("slot removed under its leaf")
	}
	// The processes finally exit: the next Reset removes the old leaf and starts anew.
	f.busy[leaf] = 0
	if err := g.Reset(lim); err != nil {
		t.Fatal(err)
	}
	f.busy[leaf] = 2
	if err := g.Destroy(); err != nil {
		t.Fatal(err)
	}
	if err := g.Destroy(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(parent); slices.ContainsFunc(ents, func(e os.DirEntry) bool { return e.IsDir() }) {
		t.Fatalf("left under the pool: %v", ents)
	}
}

// TestAbortRemovesLeaf: a run that fails before Settle leaves no leaf behind.
func TestAbortRemovesLeaf(t *testing.T) {
	f, parent := newFakeFS(t, "readonly")
	m := fakeManager(f, parent)
	g, err := m.Create("slot-0")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Destroy()
	leaf := filepath.Join(parent, "slot-0", leafName)
	if err := g.Reset(Limits{Memory: 64 * MiB}); err != nil {
		t.Fatal(err)
	}
	if err := f.join(leaf); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := g.Abort(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(leaf); err == nil {
		t.Fatal("leaf left after Abort")
	}
	if err := g.Settle(); err != nil {
		t.Fatal(err)
	}
	// In reset mode Abort is a no-op.
	f2, parent2 := newFakeFS(t, "reset")
	g2, err := fakeManager(f2, parent2).Create("slot-0")
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Destroy()
	if err := g2.Reset(Limits{Memory: 64 * MiB}); err != nil {
		t.Fatal(err)
	}
	n := len(f2.ops)
	if err := g2.Abort(); err != nil || len(f2.ops) != n {
		t.Fatalf("Abort in reset mode: %v, ops %v", err, f2.ops[n:])
	}
}

// TestLeafCreationFailureCleansUp: a leaf whose limits cannot be applied (the
// controller missing) fails Reset and is still removed by Abort/Destroy.
func TestLeafCreationFailureCleansUp(t *testing.T) {
	f, parent := newFakeFS(t, "readonly")
	f.set(parent, "cgroup.subtree_control", "pids\n") // memory not delegated
	m := fakeManager(f, parent)
	g, err := m.Create("slot-0")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Reset(Limits{Memory: 64 * MiB}); err == nil {
		t.Fatal("Reset without a memory controller succeeded")
	}
	if err := g.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := g.Destroy(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(parent, "slot-0")); err == nil {
		t.Fatal("slot left")
	}
}

// TestV2PerRunLeafOnUnifiedMount runs the per-run leaf sequence on this machine's real
// (controller-less) cgroup2 mount: the probe, a slot that is a parent only, a leaf per
// run that a process joins through the kept cgroup.procs descriptor, CPU from the
// leaf's cpu.stat, cgroup.kill on a populated subtree and on an empty leaf, removal
// waiting out EBUSY, and Destroy twice. Where the mount offers a controller (hugetlb)
// it is enabled for the slot's children, so that the kernel's "no internal processes"
// rule is checked for real: a process cannot join the slot, only its leaf.
func TestV2PerRunLeafOnUnifiedMount(t *testing.T) {
	root := "/sys/fs/cgroup/unified"
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	if _, err := os.Stat(filepath.Join(root, "cgroup.procs")); err != nil {
		t.Skip("no cgroup2 mount at " + root)
	}
	ctl := func(dir string) []string {
		b, _ := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
		return strings.Fields(string(b))
	}
	avail, _ := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
	hugetlb := slices.Contains(strings.Fields(string(avail)), "hugetlb")
	if hugetlb && !slices.Contains(ctl(root), "hugetlb") {
		if err := os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("+hugetlb"), 0); err != nil {
			hugetlb = false
		} else {
			t.Cleanup(func() {
				if err := os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("-hugetlb"), 0); err != nil {
					t.Errorf("restore %s: %v", root, err)
				}
			})
		}
	}
	parent := filepath.Join(root, "oj-test-leaf")
	if err := os.Mkdir(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := rmdirRetry(osFS{}, parent, time.Second); err != nil {
			t.Error(err)
		}
	})
	m := &Manager{v2: true, fs: osFS{}, parents: map[string]string{"": parent}}
	m.probe()
	if !m.PerRunLeaf() {
		t.Fatalf("no memory controller here, yet the probe chose reset-in-place: %s", m.Mode())
	}
	t.Logf("%s; no-internal-processes check with hugetlb: %v", m.Mode(), hugetlb)
	if hugetlb {
		if err := os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+hugetlb"), 0); err != nil {
			t.Fatal(err)
		}
	}
	g, err := m.Create("slot-0")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Destroy()
	slot := filepath.Join(parent, "slot-0")
	leaf := filepath.Join(slot, leafName)
	if hugetlb {
		if err := os.WriteFile(filepath.Join(slot, "cgroup.subtree_control"), []byte("+hugetlb"), 0); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 {
		if err := g.Reset(Limits{}); err != nil { // no controller here: no limit can apply
			t.Fatal(err)
		}
		procs, err := g.ProcsFiles()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid := []byte(itoa(cmd.Process.Pid))
		if hugetlb {
			err := os.WriteFile(filepath.Join(slot, "cgroup.procs"), pid, 0)
			if !errors.Is(err, syscall.EBUSY) {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				t.Fatalf("a process joined the slot itself: %v", err)
			}
		}
		if _, err := procs[0].Write(pid); err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		cpu, err := g.CPU()
		if err != nil || cpu <= 0 || cpu > time.Second {
			t.Errorf("run %d: leaf CPU %v, %v", i, cpu, err)
		}
		if err := g.Kill(); err != nil { // cgroup.kill of the slot reaches its leaf
			t.Fatal(err)
		}
		if err := cmd.Wait(); err == nil {
			t.Fatal("the process was not killed")
		}
		st, err := g.Stats()
		if err != nil || st.CPU < cpu || !st.NoPeak {
			t.Fatalf("run %d: stats %+v, %v", i, st, err)
		}
		if err := g.Settle(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(leaf); err == nil {
			t.Fatalf("run %d: leaf left", i)
		}
	}
	// cgroup.kill on an empty leaf, then a run that never started.
	if err := g.Reset(Limits{}); err != nil {
		t.Fatal(err)
	}
	if err := g.(*v2LeafGroup).run.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := g.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := g.Destroy(); err != nil {
		t.Fatal(err)
	}
	if err := g.Destroy(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(slot); err == nil {
		t.Fatal("slot left")
	}
}
