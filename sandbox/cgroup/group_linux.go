package cgroup

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// Group is a cgroup for runs. A pool slot keeps one Group for its whole life and runs
// one program at a time in it: Reset before each run restarts the counters, Settle
// after it checks that nothing of the run is left and drops what the run left charged,
// so creating and removing a cgroup per run (and its cost) is not needed.
//
// There is one kind per way of measuring a run, picked once by the Manager (as
// go-sandbox keeps its V1 and V2 apart): v1Group (a directory per v1 controller, reset
// in place), v2Group (one v2 directory, reset in place: needs a memory.peak that can
// be restarted, Linux 6.12) and v2LeafGroup (v2 where it cannot, see
// Manager.PerRunLeaf: the group is a parent only and each run gets a fresh leaf below
// it, "run": Reset creates it with the limits, the run's child joins it, Stats reads
// it — a new cgroup's peak and CPU are the run's own — and Settle removes it).
type Group interface {
	// Reset prepares the group for the next run: it applies lim when it differs from
	// the previous run's and restarts or records the counters, so that Stats and CPU
	// report this run alone. The group must be empty (see Settle). A leaf group
	// creates the run's leaf with lim instead (removing a leaf an earlier run left).
	Reset(lim Limits) error
	// ProcsFiles returns cgroup.procs of every directory of the group (a leaf group's:
	// its current run's), opened for writing once and owned by the group; a child
	// that writes "0" to each joins the group itself, before exec, with no race.
	ProcsFiles() ([]*os.File, error)
	// CPU returns the CPU time used by all threads of the group since Reset.
	CPU() (time.Duration, error)
	// Threads lists the thread ids (as this process's PID namespace numbers them) of
	// every process in the group now: the run's tasks, whose scheduler statistics say
	// how long each waited for a CPU (see sandbox's stall meter).
	Threads() ([]int, error)
	// Stats reads the group's counters since Reset. The peak does not include what
	// earlier runs left charged to the group (page cache Settle keeps; see
	// dropInherited).
	Stats() (Stats, error)
	// Settle is called after a run whose processes have all been killed and reaped:
	// it checks that the group is empty (killing anything listed, which cannot
	// normally happen) and, when the run left more than LeftCharge charged besides
	// clean page cache (which stays: see settle), reclaims and waits for what cannot
	// be reclaimed (tmpfs, shared memory, kernel memory) to drain back to at most
	// LeftCharge; ErrNotDrained when it does not in time. Any other error means the
	// group cannot be trusted for another run either. A leaf group removes its run's leaf instead, waiting (EBUSY) while
	// killed processes finish exiting; what the leaf had charged moves up to the
	// group, whose own charge limits nothing (the limits are the leaf's).
	Settle() error
	// Abort ends a run that did not reach Settle (a setup failure on our side, a
	// broken slot): a leaf group's leaf is removed now, killing what is in it, rather
	// than at the next Reset. A group reset in place needs nothing: the next Reset or
	// Destroy deals with it. It is idempotent.
	Abort() error
	// Kill sends SIGKILL to every process in the group: cgroup.kill on v2 when the
	// kernel has it, else each pid listed in cgroup.procs until none is left.
	Kill() error
	// Destroy kills what is left and removes the group (a leaf group's current leaf
	// first), waiting out EBUSY while killed processes exit. It is idempotent; after a
	// failure a later call tries again.
	Destroy() error
}

// New creates the cgroup name under the parent and resets it with lim, ready for a run.
func (m *Manager) New(name string, lim Limits) (Group, error) {
	g, err := m.Create(name)
	if err != nil {
		return nil, err
	}
	if err := g.Reset(lim); err != nil {
		_ = g.Destroy()
		return nil, err
	}
	return g, nil
}

// Create creates the cgroup name without limits, of the kind the Manager detected;
// Reset sets them.
func (m *Manager) Create(name string) (Group, error) {
	n := &node{fs: m.ops(), dirs: map[string]string{}, files: map[string]cgFile{}}
	g, ready := m.kind(n)
	err := n.mkdirs(m.parents, name)
	if err == nil {
		err = ready()
	}
	if err != nil {
		_ = g.Destroy() // what was created goes, as it would with the group
		return nil, err
	}
	return g, nil
}

// kind returns the group of the Manager's kind on n, and what readies it once n's
// directories exist. It is the one place that looks at the hierarchy and the probe.
func (m *Manager) kind(n *node) (Group, func() error) {
	switch {
	case !m.v2:
		return &v1Group{node: n}, func() error { return n.openCPU("cpuacct", "cpuacct.usage") }
	case m.perRun:
		// A parent only: its runs' leaves get the controllers, no process lives here.
		return &v2LeafGroup{node: n}, func() error { return enableAvailable(n.ops(), n.dirs[""]) }
	}
	return &v2Group{node: n}, func() error { return n.openCPU("", "cpu.stat") }
}

// baseline holds the counters that cannot be reset, read by Reset; Stats reports the
// difference.
type baseline struct {
	cpu       time.Duration // v2 usage_usec
	usage     int64         // memory charged before the run (left by earlier runs)
	oomKills  int64
	limitHits int64 // v2 "max" events
}

// since returns s as counted from the baseline on.
func (b baseline) since(s Stats) Stats {
	// What was charged before the run is left out only when it is more than Settle
	// lets stay: a smaller remainder is mostly the kernel's per-CPU batch of charges
	// made in advance, from which the run's first pages are then taken without moving
	// the counter, so subtracting it would report almost nothing for a small run.
	if b.usage > LeftCharge {
		s.MemoryPeak = max(0, s.MemoryPeak-b.usage)
	}
	s.OOMKills = max(0, s.OOMKills-b.oomKills)
	s.LimitHits = max(0, s.LimitHits-b.limitHits)
	return s
}

// LeftCharge is how much memory other than clean page cache may stay charged to a
// group between runs before Settle reclaims it, so that the next run starts with its
// memory limit free. Page cache stays, up to a quarter of the next run's limit
// (dropInherited): the kernel reclaims it when a run needs the room.
const LeftCharge = 1 << 20

// dropInherited reclaims what earlier runs left charged to g (the page cache Settle
// keeps) when it is over a quarter of the next run's memory limit. A run that reaches
// its limit has the kernel reclaim that cache for it, and its peak, which leaves all of
// it out, then understates the run's own use by what was reclaimed: this bounds that
// to a quarter of the limit, and only for runs that reach it. An interpreter's few MiB
// stay cached under any usual limit.
func dropInherited(g inPlace, limit int64) {
	cur, err := g.charge()
	if err != nil || limit <= 0 || cur <= max(LeftCharge, limit/4) {
		return
	}
	g.reclaim(cur)
}

// ErrNotDrained is Settle's answer when the memory a run left charged to the group did
// not drain back to the baseline (LeftCharge, besides page cache the next run can
// reclaim) within DrainWait: tmpfs or shared-memory pages that something still holds.
// The run's figures are good; the group is not, for another run, and should be
// replaced (removing it takes the charge out of every later run's way).
var ErrNotDrained = errors.New("cgroup: memory charge left by the run did not drain")

// DrainWait is how long Settle waits for a run's memory charge to drain: the kernel
// frees an IPC namespace (and the shared memory charged to it) asynchronously, shortly
// after its last process is gone. A variable for the tests.
var DrainWait = 250 * time.Millisecond

// inPlace is what Settle needs of a group reset in place (v1Group, v2Group): the
// hierarchy-specific files behind one drain procedure.
type inPlace interface {
	empty() bool
	Kill() error
	// charge is the memory charged to the group now; 0 where there is no memory
	// controller.
	charge() (int64, error)
	// reclaim asks the kernel to give back up to cur bytes.
	reclaim(cur int64)
	// pageCache is the page cache (not tmpfs) charged to the group, which the next
	// run reclaims if it needs the room.
	pageCache() (int64, error)
}

// settle is Settle for a group reset in place (see Group.Settle).
func settle(g inPlace) error {
	if !g.empty() {
		if err := g.Kill(); err != nil {
			return err
		}
		deadline := time.Now().Add(2 * time.Second)
		for !g.empty() {
			if time.Now().After(deadline) {
				return errors.New("cgroup: processes left after the run")
			}
			time.Sleep(time.Millisecond)
		}
	}
	cur, err := g.charge()
	if err != nil || cur <= LeftCharge {
		return err
	}
	// Clean page cache of files the run read (an interpreter's library, a compiler's
	// headers, a test's input) stays charged to the group: the next run can reclaim it
	// if it needs the room, and dropping it would make every run read those files from
	// the disk again, be charged for them again, have them dropped again — a cycle that
	// once started (after anything evicted them) halved the judging rate and tied it to
	// the disk. Only what page cache does not explain is reclaimed and waited for.
	if cache, err := g.pageCache(); err == nil && cur-cache <= LeftCharge {
		return nil
	}
	g.reclaim(cur)
	deadline := time.Now().Add(DrainWait)
	for i := 0; ; i++ {
		cur, err = g.charge()
		if err != nil {
			return err
		}
		if cur <= LeftCharge {
			return nil
		}
		// Page cache that could not be dropped yet — dirty pages being written back —
		// is reclaimed by the next run if it needs the room, as any cache is;
		// everything else would shrink its limit.
		if cache, err := g.pageCache(); err == nil && cur-cache <= LeftCharge {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: %d bytes still charged after %v", ErrNotDrained, cur, DrainWait)
		}
		time.Sleep(time.Millisecond)
		if i%20 == 19 {
			g.reclaim(cur)
		}
	}
}
