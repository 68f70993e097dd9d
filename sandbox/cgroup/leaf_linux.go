package cgroup

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// cgroup v2 keeps no per-run peak for a reused cgroup unless memory.peak can be
// restarted, which a write does only since Linux 6.12 (and only for reads through the
// descriptor that wrote). Production kernels go back to 5.10, so the Manager probes
// once at start (probe) and picks one of two ways for every slot:
//
//   - reset (6.12 and later): the slot's cgroup holds its runs directly; Reset writes
//     memory.peak and records the counters that never restart (cpu.stat usage_usec,
//     memory.events oom_kill and max), Stats reports the differences.
//   - per-run leaf (before 6.12, or whenever the probe fails): the slot's cgroup is a
//     parent only, with memory and pids enabled for its children and no process of
//     its own ("no internal processes"; a slot's init lives in the pool's own
//     cgroup). Reset creates slot/run and applies the limits to it (memory.max,
//     memory.swap.max 0, memory.oom.group 1, pids.max: the leaf is what a run may
//     use; the parent has no limit, so page cache left by earlier runs, which moves
//     up when their leaf goes, counts against nobody's limit); the run's child joins
//     it through its cgroup.procs like any group's; Stats reads it: a new cgroup's
//     memory.peak, cpu.stat and memory.events are exactly the run's. Settle removes
//     it, retrying EBUSY while killed processes finish exiting; a leaf that cannot be
//     removed stays recorded and is retried by the next Reset and by Destroy, so none
//     is ever forgotten.
//
// pids needs nothing per run: pids.current is a gauge and pids.max a limit.

// leafName is the per-run leaf under a slot's cgroup.
const leafName = "run"

// errNoRun is a per-run group asked for its run's files or figures outside a run.
var errNoRun = errors.New("cgroup: no run started in this group (Reset first)")

// PerRunLeaf reports whether run groups give each run a fresh leaf cgroup (cgroup v2
// where memory.peak cannot be restarted) rather than resetting one cgroup in place.
func (m *Manager) PerRunLeaf() bool { return m.perRun }

// Mode describes how runs are measured, for diagnostics.
func (m *Manager) Mode() string {
	switch {
	case !m.v2:
		return "cgroup v1, one cgroup per slot reset between runs"
	case m.perRun:
		return "cgroup v2, a new leaf cgroup per run (" + m.perRunWhy + ")"
	}
	return "cgroup v2, one cgroup per slot reset between runs (memory.peak is resettable)"
}

// probe decides, on v2, between resetting a slot's cgroup and a leaf per run.
func (m *Manager) probe() {
	if !m.v2 {
		return
	}
	ok, why := peakResettable(m.ops(), m.parents[""])
	m.perRun, m.perRunWhy = !ok, why
}

// peakResettable reports whether dir's memory.peak restarts when written (Linux 6.12:
// the write handler came with the reset). It writes through a descriptor of its own,
// which restarts the peak for that descriptor only, so nobody else's reading changes,
// and checks that the value read back through it is the current usage rather than a
// peak from before. Before 6.12 the file has no write handler and the open for writing
// fails (EACCES); before 5.19 there is no memory.peak at all.
func peakResettable(fsys fsys, dir string) (bool, string) {
	name := filepath.Join(dir, "memory.peak")
	f, err := fsys.OpenFile(name, os.O_RDWR)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, "no memory.peak: kernel before 5.19 or no memory controller"
		}
		return false, "memory.peak is read-only: kernel before 6.12"
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte("reset"), 0); err != nil {
		return false, "memory.peak refused a reset: " + err.Error()
	}
	peak, err := readIntAt(f)
	if err != nil {
		return false, "memory.peak after a reset: " + err.Error()
	}
	cur, err := readAll(fsys, filepath.Join(dir, "memory.current"))
	if err != nil {
		return false, "memory.current: " + err.Error()
	}
	c, err := parseInt(cur)
	if err != nil {
		return false, "memory.current: " + err.Error()
	}
	if peak > c+LeftCharge {
		return false, fmt.Sprintf("memory.peak reads %d after a reset with %d in use", peak, c)
	}
	return true, ""
}

func readIntAt(f io.ReaderAt) (int64, error) {
	var buf [64]byte
	n, err := f.ReadAt(buf[:], 0)
	if n == 0 && err != nil && err != io.EOF {
		return 0, err
	}
	return parseInt(string(buf[:n]))
}

// enableAvailable turns on, for dir's children, those of memory and pids that dir
// has. One that dir lacks is not an error here: applying a limit that needs it is.
func enableAvailable(fsys fsys, dir string) error {
	have, err := readAll(fsys, filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return fmt.Errorf("cgroup %s: %w", dir, err)
	}
	on, _ := readAll(fsys, filepath.Join(dir, "cgroup.subtree_control"))
	var add []string
	for _, c := range v2Controllers {
		if slices.Contains(strings.Fields(have), c) && !slices.Contains(strings.Fields(on), c) {
			add = append(add, "+"+c)
		}
	}
	if len(add) == 0 {
		return nil
	}
	if err := writeOnce(fsys, filepath.Join(dir, "cgroup.subtree_control"), strings.Join(add, " ")); err != nil {
		return fmt.Errorf("enable %v for the runs of %s: %w", add, dir, err)
	}
	return nil
}

// startRun creates the run's leaf with lim, after removing one an earlier run left.
func (g *Group) startRun(lim Limits) error {
	if err := g.endRun(); err != nil {
		return err
	}
	dir := filepath.Join(g.dirs[""], leafName)
	err := g.fs.Mkdir(dir)
	if errors.Is(err, fs.ErrExist) {
		// Only if a removal was lost track of; a leaf is never shared, so take it back.
		old := &Group{v2: true, fs: g.fs, dirs: map[string]string{"": dir}}
		if err = old.Destroy(); err == nil {
			err = g.fs.Mkdir(dir)
		}
	}
	if err != nil {
		return fmt.Errorf("create run cgroup: %w", err)
	}
	r := &Group{v2: true, fs: g.fs, dirs: map[string]string{"": dir}, files: map[string]cgFile{}}
	g.run = r // from here on endRun and Destroy remove it, whatever fails
	if r.cpu, err = g.fs.OpenFile(filepath.Join(dir, "cpu.stat"), os.O_RDONLY); err != nil {
		return fmt.Errorf("open cgroup cpu usage: %w", err)
	}
	return r.Apply(lim)
}

// endRun removes the current run's leaf, killing anything left in it and waiting for
// it to exit. On failure the leaf stays recorded and the next call tries again.
func (g *Group) endRun() error {
	if g.run == nil {
		return nil
	}
	if err := g.run.Destroy(); err != nil {
		return err
	}
	g.run = nil
	return nil
}

// Abort ends a run that did not reach Settle (a setup failure on our side, a broken
// slot): a per-run group's leaf is removed now, killing what is in it, rather than at
// the next Reset. A group reset in place needs nothing: the next Reset or Destroy
// deals with it. It is idempotent.
func (g *Group) Abort() error {
	if !g.perRun {
		return nil
	}
	return g.endRun()
}
