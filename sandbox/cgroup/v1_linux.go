package cgroup

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// v1Group is a cgroup v1 group: one directory in each of the memory, cpuacct and pids
// hierarchies, reset in place between runs (v1 counters can all be restarted by a
// write, except the OOM-kill count, which Reset records).
type v1Group struct {
	*node
	applied    Limits
	hasApplied bool
	base       baseline
	// memsw: the kernel accounts memory+swap, so a charge over the limit fails on the
	// memsw counter first and is counted in memory.memsw.failcnt, not memory.failcnt.
	memsw bool
}

// apply sets the group's memory (swap disabled) and pids limits.
func (g *v1Group) apply(lim Limits) error {
	mem := strconv.FormatInt(lim.Memory, 10)
	g.memsw = g.has("memory", "memory.memsw.limit_in_bytes")
	if lim.Memory > 0 {
		if g.memsw {
			// memory+swap must stay ≥ memory at every step, whichever way the limit
			// moves: lift it, set memory, then pin it to memory.
			for _, w := range [][2]string{{"memory.memsw.limit_in_bytes", "-1"}, {"memory.limit_in_bytes", mem}, {"memory.memsw.limit_in_bytes", mem}} {
				if err := g.put("memory", w[0], w[1]); err != nil {
					return err
				}
			}
		} else {
			if err := g.put("memory", "memory.limit_in_bytes", mem); err != nil {
				return err
			}
			_ = g.put("memory", "memory.swappiness", "0")
		}
	}
	if err := g.put("pids", "pids.max", pidsMax(lim)); err != nil {
		return err
	}
	g.applied, g.hasApplied = lim, true
	return nil
}

// pidsMax is lim's pids.max value.
func pidsMax(lim Limits) string {
	if lim.Pids > 0 {
		return strconv.FormatInt(lim.Pids, 10)
	}
	return "max"
}

// Reset implements Group: CPU, peak memory and failcnt restart at 0.
func (g *v1Group) Reset(lim Limits) error {
	if !g.hasApplied || lim != g.applied {
		if err := g.apply(lim); err != nil {
			return err
		}
	}
	dropInherited(g, lim.Memory)
	g.base = baseline{}
	for _, name := range g.restarted() {
		if err := g.put(name[0], name[1], "0"); err != nil {
			return fmt.Errorf("reset %w", err)
		}
	}
	if v, err := g.get("memory", "memory.oom_control"); err == nil {
		g.base.oomKills, _ = flatKeyed(v, "oom_kill")
	}
	v, err := g.get("memory", "memory.usage_in_bytes")
	if err != nil {
		return err
	}
	g.base.usage, _ = parseInt(v)
	return nil
}

// failcnts are the counters of charges refused at the limit.
func (g *v1Group) failcnts() []string {
	if g.memsw {
		return []string{"memory.failcnt", "memory.memsw.failcnt"}
	}
	return []string{"memory.failcnt"}
}

// restarted are the counters Reset writes 0 to (controller, file).
func (g *v1Group) restarted() [][2]string {
	out := [][2]string{{"cpuacct", "cpuacct.usage"}, {"memory", "memory.max_usage_in_bytes"}}
	for _, name := range g.failcnts() {
		out = append(out, [2]string{"memory", name})
	}
	return out
}

// ProcsFiles implements Group.
func (g *v1Group) ProcsFiles() ([]*os.File, error) { return g.procsFiles() }

// CPU implements Group: cpuacct.usage, in nanoseconds since Reset.
func (g *v1Group) CPU() (time.Duration, error) {
	v, err := g.readCPU()
	if err != nil {
		return 0, err
	}
	ns, err := parseInt(v)
	return time.Duration(ns), err
}

// Threads implements Group: every v1 hierarchy holds the same tasks; cpuacct's are read.
func (g *v1Group) Threads() ([]int, error) { return g.threads("cpuacct", "tasks") }

// Stats implements Group.
func (g *v1Group) Stats() (Stats, error) {
	var s Stats
	var err error
	if s.CPU, err = g.CPU(); err != nil {
		return s, err
	}
	v, err := g.get("memory", "memory.max_usage_in_bytes")
	if err != nil {
		return s, fmt.Errorf("read memory peak: %w", err)
	}
	s.MemoryPeak, _ = parseInt(v)
	if v, err := g.get("memory", "memory.oom_control"); err == nil {
		s.OOMKills, _ = flatKeyed(v, "oom_kill")
	}
	for _, name := range g.failcnts() {
		if v, err := g.get("memory", name); err == nil {
			n, _ := parseInt(v)
			s.LimitHits += n
		}
	}
	return g.base.since(s), nil
}

// Settle implements Group.
func (g *v1Group) Settle() error { return settle(g) }

// Abort implements Group: nothing to do for a group reset in place.
func (g *v1Group) Abort() error { return nil }

// Kill implements Group: v1 has no cgroup.kill.
func (g *v1Group) Kill() error { return g.killListed() }

// Destroy implements Group.
func (g *v1Group) Destroy() error { return g.destroy(g.Kill, nil) }

// empty reads the pids hierarchy's pids.current through a descriptor kept open (a kept
// v1 cgroup.procs does not see later changes): it counts every task of a run, as a
// child joins all hierarchies before exec, and one that fails to exits.
func (g *v1Group) empty() bool {
	v, err := g.get("pids", "pids.current")
	n, perr := parseInt(v)
	return err == nil && perr == nil && n == 0
}

func (g *v1Group) charge() (int64, error) { return g.charged("memory", "memory.usage_in_bytes") }

// reclaim is memory.force_empty, only possible with no task in the group.
func (g *v1Group) reclaim(int64) { _ = g.put("memory", "memory.force_empty", "0") }

func (g *v1Group) pageCache() (int64, error) {
	v, err := g.get("memory", "memory.stat")
	if err != nil {
		return 0, err
	}
	cache, _ := flatKeyed(v, "cache") // tmpfs included, as shmem
	shmem, _ := flatKeyed(v, "shmem")
	return max(0, cache-shmem), nil
}
