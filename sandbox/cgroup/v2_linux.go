package cgroup

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// v2Group is one cgroup v2 directory. As a slot's group it is reset in place between
// runs, which needs a memory.peak that restarts when written (Linux 6.12); the counters
// that never restart (cpu.stat usage_usec, memory.events oom_kill and max) are recorded
// by Reset. It is also the per-run leaf of a v2LeafGroup, applied once and never reset:
// a new cgroup's counters are its run's own.
type v2Group struct {
	*node
	applied    Limits
	hasApplied bool
	base       baseline
}

// apply sets the group's memory (swap disabled) and pids limits.
func (g *v2Group) apply(lim Limits) error {
	if lim.Memory > 0 {
		if err := g.put("", "memory.max", strconv.FormatInt(lim.Memory, 10)); err != nil {
			return err
		}
		if g.has("", "memory.swap.max") {
			if err := g.put("", "memory.swap.max", "0"); err != nil {
				return err
			}
		}
		// One OOM kill ends the whole run, as a judge expects.
		if g.has("", "memory.oom.group") {
			_ = g.put("", "memory.oom.group", "1")
		}
	}
	if g.has("", "pids.max") {
		if err := g.put("", "pids.max", pidsMax(lim)); err != nil {
			return err
		}
	}
	g.applied, g.hasApplied = lim, true
	return nil
}

// Reset implements Group: memory.peak is restarted through our own file descriptor,
// the other counters are recorded.
func (g *v2Group) Reset(lim Limits) error {
	if !g.hasApplied || lim != g.applied {
		if err := g.apply(lim); err != nil {
			return err
		}
	}
	dropInherited(g, lim.Memory)
	g.base = baseline{}
	cpu, err := g.CPU()
	if err != nil {
		return err
	}
	g.base.cpu = cpu
	if v, err := g.get("", "memory.events"); err == nil {
		g.base.oomKills, _ = flatKeyed(v, "oom_kill")
		g.base.limitHits, _ = flatKeyed(v, "max")
	}
	// Since Linux 6.12 a write to memory.peak restarts the peak seen through the same
	// descriptor (kept open in g.files); on older kernels the peak stays cumulative,
	// and the Manager made the slot a v2LeafGroup instead (PerRunLeaf).
	if err := g.put("", "memory.peak", "reset"); err != nil {
		return fmt.Errorf("reset %w", err)
	}
	if v, err := g.get("", "memory.current"); err == nil {
		g.base.usage, _ = parseInt(v)
	}
	return nil
}

// ProcsFiles implements Group.
func (g *v2Group) ProcsFiles() ([]*os.File, error) { return g.procsFiles() }

// CPU implements Group: cpu.stat usage_usec since Reset.
func (g *v2Group) CPU() (time.Duration, error) {
	v, err := g.readCPU()
	if err != nil {
		return 0, err
	}
	us, err := flatKeyed(v, "usage_usec")
	return time.Duration(us)*time.Microsecond - g.base.cpu, err
}

// Threads implements Group.
func (g *v2Group) Threads() ([]int, error) { return g.threads("", "cgroup.threads") }

// Stats implements Group.
func (g *v2Group) Stats() (Stats, error) {
	var s Stats
	var err error
	if s.CPU, err = g.CPU(); err != nil {
		return s, err
	}
	if v, err := g.get("", "memory.peak"); err == nil {
		s.MemoryPeak, _ = parseInt(v)
	} else {
		// Before Linux 5.19: no peak, only what is still charged.
		s.NoPeak = true
		if v, err := g.get("", "memory.current"); err == nil {
			s.MemoryPeak, _ = parseInt(v)
		}
	}
	if v, err := g.get("", "memory.events"); err == nil {
		s.OOMKills, _ = flatKeyed(v, "oom_kill")
		s.LimitHits, _ = flatKeyed(v, "max")
	}
	return g.base.since(s), nil
}

// Settle implements Group.
func (g *v2Group) Settle() error { return settle(g) }

// Abort implements Group: nothing to do for a group reset in place.
func (g *v2Group) Abort() error { return nil }

// Kill implements Group: cgroup.kill (Linux 5.14) empties the whole subtree at once.
func (g *v2Group) Kill() error { return killV2(g.node) }

// killV2 kills every process of n's one v2 directory and below.
func killV2(n *node) error {
	if n.has("", "cgroup.kill") {
		return writeOnce(n.ops(), filepath.Join(n.dirs[""], "cgroup.kill"), "1")
	}
	return n.killListed()
}

// Destroy implements Group.
func (g *v2Group) Destroy() error { return g.destroy(g.Kill, nil) }

// empty reads cgroup.events through a descriptor kept open.
func (g *v2Group) empty() bool {
	v, err := g.get("", "cgroup.events")
	n, perr := flatKeyed(v, "populated")
	return err == nil && perr == nil && n == 0
}

// charge is memory.current; 0 without a memory controller.
func (g *v2Group) charge() (int64, error) {
	if _, err := g.file("", "memory.current"); err != nil {
		return 0, nil
	}
	return g.charged("", "memory.current")
}

func (g *v2Group) reclaim(cur int64) {
	_ = g.put("", "memory.reclaim", strconv.FormatInt(cur, 10))
}

func (g *v2Group) pageCache() (int64, error) {
	v, err := g.get("", "memory.stat")
	if err != nil {
		return 0, err
	}
	file, _ := flatKeyed(v, "file") // tmpfs included, as shmem
	shmem, _ := flatKeyed(v, "shmem")
	return max(0, file-shmem), nil
}
