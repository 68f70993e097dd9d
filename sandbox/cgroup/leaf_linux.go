package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// cgroup v2 keeps no per-run peak for a reused cgroup unless memory.peak can be
// restarted, which a write does only since Linux 6.12 (and only for reads through the
// descriptor that wrote). Production kernels go back to 5.10, so the Manager probes
// once at start (probe) and picks one of two ways for every slot:
//
//   - reset (6.12 and later; v2Group): the slot's cgroup holds its runs directly;
//     Reset writes memory.peak and records the counters that never restart
//     (cpu.stat usage_usec, memory.events oom_kill and max), Stats reports the
//     differences.
//   - per-run leaf (before 6.12, or whenever the probe fails; v2LeafGroup): the
//     slot's cgroup is a parent only, with memory and pids enabled for its children
//     and no process of its own ("no internal processes"; a slot's init lives in the
//     pool's own cgroup). Reset creates slot/run and applies the limits to it
//     (memory.max, memory.swap.max 0, memory.oom.group 1, pids.max: the leaf is what
//     a run may use; the parent has no limit, so page cache left by earlier runs,
//     which moves up when their leaf goes, counts against nobody's limit); the run's
//     child joins it through its cgroup.procs like any group's; Stats reads it: a new
//     cgroup's memory.peak, cpu.stat and memory.events are exactly the run's. Settle
//     removes it, retrying EBUSY while killed processes finish exiting; a leaf that
//     cannot be removed stays recorded and is retried by the next Reset and by
//     Destroy, so none is ever forgotten.
//
// pids needs nothing per run: pids.current is a gauge and pids.max a limit.

// leafName is the per-run leaf under a slot's cgroup.
const leafName = "run"

// errNoRun is a per-run group asked for its run's files or figures outside a run.
var errNoRun = errors.New("cgroup: no run started in this group (Reset first)")

// v2LeafGroup is a slot's group on v2 without a resettable memory.peak: a parent only,
// holding no process itself (cgroup v2's "no internal processes" rule: it enables
// memory and pids for its children), with run, the current run's leaf, nil between
// runs.
type v2LeafGroup struct {
	*node
	run *v2Group
}

// Reset implements Group: it creates the run's leaf with lim, after removing one an
// earlier run left.
func (g *v2LeafGroup) Reset(lim Limits) error {
	if err := g.endRun(); err != nil {
		return err
	}
	dir := filepath.Join(g.dirs[""], leafName)
	err := g.fs.Mkdir(dir)
	if errors.Is(err, fs.ErrExist) {
		// Only if a removal was lost track of; a leaf is never shared, so take it back.
		old := &v2Group{node: &node{fs: g.fs, dirs: map[string]string{"": dir}}}
		if err = old.Destroy(); err == nil {
			err = g.fs.Mkdir(dir)
		}
	}
	if err != nil {
		return fmt.Errorf("create run cgroup: %w", err)
	}
	r := &v2Group{node: &node{fs: g.fs, dirs: map[string]string{"": dir}, files: map[string]cgFile{}}}
	g.run = r // from here on endRun and Destroy remove it, whatever fails
	if err := r.openCPU("", "cpu.stat"); err != nil {
		return err
	}
	return r.apply(lim)
}

// endRun removes the current run's leaf, killing anything left in it and waiting for
// it to exit. On failure the leaf stays recorded and the next call tries again.
func (g *v2LeafGroup) endRun() error {
	if g.run == nil {
		return nil
	}
	if err := g.run.Destroy(); err != nil {
		return err
	}
	g.run = nil
	return nil
}

// ProcsFiles implements Group: the current run's leaf's.
func (g *v2LeafGroup) ProcsFiles() ([]*os.File, error) {
	if g.run == nil {
		return nil, errNoRun
	}
	return g.run.ProcsFiles()
}

// CPU implements Group: the current run's leaf's.
func (g *v2LeafGroup) CPU() (time.Duration, error) {
	if g.run == nil {
		return 0, errNoRun
	}
	return g.run.CPU()
}

// Threads implements Group: the current run's leaf's.
func (g *v2LeafGroup) Threads() ([]int, error) {
	if g.run == nil {
		return nil, errNoRun
	}
	return g.run.Threads()
}

// Stats implements Group: the current run's leaf's, whose counters started at zero.
func (g *v2LeafGroup) Stats() (Stats, error) {
	if g.run == nil {
		return Stats{}, errNoRun
	}
	return g.run.Stats()
}

// Settle implements Group: the run's leaf is removed.
func (g *v2LeafGroup) Settle() error { return g.endRun() }

// Abort implements Group: the run's leaf is removed now.
func (g *v2LeafGroup) Abort() error { return g.endRun() }

// Kill implements Group.
func (g *v2LeafGroup) Kill() error {
	if g.run != nil {
		// Without cgroup.kill the slot's own cgroup.procs lists nothing: the leaf's does.
		if err := g.run.Kill(); err != nil {
			return err
		}
	}
	return killV2(g.node)
}

// Destroy implements Group: the current leaf first, as the parent cannot go while its
// leaf is there.
func (g *v2LeafGroup) Destroy() error { return g.destroy(g.Kill, g.endRun) }
