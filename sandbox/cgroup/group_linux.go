package cgroup

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Group is a cgroup for runs (a directory per v1 controller, or one v2 directory). A
// pool slot keeps one Group for its whole life and runs one program at a time in it:
// Reset before each run restarts the counters, Settle after it checks that nothing of
// the run is left and drops what the run left charged, so creating and removing a
// cgroup per run (and its cost) is not needed.
//
// On v2 that needs a memory.peak that can be restarted (Linux 6.12). Where it cannot
// (see Manager.PerRunLeaf) the group is a parent only and each run gets a fresh leaf
// below it, "run": Reset creates it with the limits, the run's child joins it, Stats
// reads it (a new cgroup's peak and CPU are the run's own) and Settle removes it.
type Group struct {
	v2    bool
	fs    fsys
	dirs  map[string]string
	cpu   cgFile // cpuacct.usage or cpu.stat, kept open for polling
	files map[string]cgFile
	procs []*os.File

	// perRun: v2 without a resettable memory.peak. The group holds no process itself
	// (cgroup v2's "no internal processes" rule: it enables memory and pids for its
	// children); run is the current run's leaf, nil between runs.
	perRun bool
	run    *Group

	applied    Limits
	hasApplied bool
	base       baseline

	mu   sync.Mutex
	gone bool
}

// baseline holds the counters that cannot be reset, read by Reset; Stats reports the
// difference.
type baseline struct {
	cpu       time.Duration // v2 usage_usec
	usage     int64         // memory charged before the run (left by earlier runs)
	oomKills  int64
	limitHits int64 // v2 "max" events
}

// New creates the cgroup name under the parent and applies lim.
func (m *Manager) New(name string, lim Limits) (*Group, error) {
	g, err := m.Create(name)
	if err != nil {
		return nil, err
	}
	if err := g.Apply(lim); err != nil {
		_ = g.Destroy()
		return nil, err
	}
	return g, nil
}

// Create creates the cgroup name without limits; Reset or Apply sets them.
func (m *Manager) Create(name string) (*Group, error) {
	g := &Group{v2: m.v2, fs: m.ops(), dirs: map[string]string{}, files: map[string]cgFile{}}
	for c, p := range m.parents {
		d := filepath.Join(p, name)
		if err := g.fs.Mkdir(d); err != nil {
			_ = g.Destroy()
			return nil, fmt.Errorf("create cgroup: %w", err)
		}
		g.dirs[c] = d
	}
	if g.v2 && m.perRun {
		// A parent only: its runs' leaves get the controllers, no process lives here.
		g.perRun = true
		if err := enableAvailable(g.fs, g.dirs[""]); err != nil {
			_ = g.Destroy()
			return nil, err
		}
		return g, nil
	}
	cpuFile := filepath.Join(g.dir("cpuacct"), "cpuacct.usage")
	if g.v2 {
		cpuFile = filepath.Join(g.dir(""), "cpu.stat")
	}
	f, err := g.fs.OpenFile(cpuFile, os.O_RDONLY)
	if err != nil {
		_ = g.Destroy()
		return nil, fmt.Errorf("open cgroup cpu usage: %w", err)
	}
	g.cpu = f
	return g, nil
}

func (g *Group) dir(c string) string {
	if g.v2 {
		return g.dirs[""]
	}
	return g.dirs[c]
}

// file returns controller c's file name, opened once read-write (or read-only where
// the kernel refuses writing) and kept for the group's life.
func (g *Group) file(c, name string) (cgFile, error) {
	key := c + "/" + name
	if f, ok := g.files[key]; ok {
		return f, nil
	}
	p := filepath.Join(g.dir(c), name)
	f, err := g.ops().OpenFile(p, os.O_RDWR)
	if err != nil {
		f, err = g.ops().OpenFile(p, os.O_RDONLY)
	}
	if err != nil {
		return nil, fmt.Errorf("cgroup %s: %w", name, err)
	}
	if g.files == nil {
		g.files = map[string]cgFile{}
	}
	g.files[key] = f
	return f, nil
}

func (g *Group) put(c, name, val string) error {
	f, err := g.file(c, name)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt([]byte(val), 0); err != nil {
		return fmt.Errorf("cgroup %s: %w", name, err)
	}
	return nil
}

func (g *Group) get(c, name string) (string, error) {
	f, err := g.file(c, name)
	if err != nil {
		return "", err
	}
	var buf [1024]byte
	n, err := f.ReadAt(buf[:], 0)
	if n == 0 && err != nil && err != io.EOF {
		return "", fmt.Errorf("cgroup %s: %w", name, err)
	}
	return string(buf[:n]), nil
}

// ops returns the group's cgroupfs (the real one unless a test gave another).
func (g *Group) ops() fsys {
	if g.fs == nil {
		return osFS{}
	}
	return g.fs
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// Apply sets the group's memory (swap disabled) and pids limits.
func (g *Group) Apply(lim Limits) error {
	mem := strconv.FormatInt(lim.Memory, 10)
	pids := "max"
	if lim.Pids > 0 {
		pids = strconv.FormatInt(lim.Pids, 10)
	}
	if g.v2 {
		d := g.dirs[""]
		if lim.Memory > 0 {
			if err := g.put("", "memory.max", mem); err != nil {
				return err
			}
			if exists(filepath.Join(d, "memory.swap.max")) {
				if err := g.put("", "memory.swap.max", "0"); err != nil {
					return err
				}
			}
			// One OOM kill ends the whole run, as a judge expects.
			if exists(filepath.Join(d, "memory.oom.group")) {
				_ = g.put("", "memory.oom.group", "1")
			}
		}
		if exists(filepath.Join(d, "pids.max")) {
			if err := g.put("", "pids.max", pids); err != nil {
				return err
			}
		}
	} else {
		if lim.Memory > 0 {
			d := g.dirs["memory"]
			if exists(filepath.Join(d, "memory.memsw.limit_in_bytes")) {
				// memory+swap must stay ≥ memory at every step, whichever way the limit
				// moves: lift it, set memory, then pin it to memory.
				if err := g.put("memory", "memory.memsw.limit_in_bytes", "-1"); err != nil {
					return err
				}
				if err := g.put("memory", "memory.limit_in_bytes", mem); err != nil {
					return err
				}
				if err := g.put("memory", "memory.memsw.limit_in_bytes", mem); err != nil {
					return err
				}
			} else {
				if err := g.put("memory", "memory.limit_in_bytes", mem); err != nil {
					return err
				}
				_ = g.put("memory", "memory.swappiness", "0")
			}
		}
		if err := g.put("pids", "pids.max", pids); err != nil {
			return err
		}
	}
	g.applied, g.hasApplied = lim, true
	return nil
}

// Reset prepares the group for the next run: it applies lim when it differs from the
// previous run's, restarts the counters that can be restarted (v1 CPU, peak memory,
// failcnt; v2 memory.peak through our own file descriptor) and records the others, so
// that Stats and CPU report this run alone. The group must be empty (see Settle). A
// per-run group instead creates the run's leaf with lim (removing a leaf an earlier
// run left first).
func (g *Group) Reset(lim Limits) error {
	if g.perRun {
		return g.startRun(lim)
	}
	if !g.hasApplied || lim != g.applied {
		if err := g.Apply(lim); err != nil {
			return err
		}
	}
	g.base = baseline{}
	if g.v2 {
		cpu, err := g.CPU()
		if err != nil {
			return err
		}
		g.base.cpu = cpu
		if v, err := g.get("", "memory.events"); err == nil {
			g.base.oomKills, _ = flatKeyed(v, "oom_kill")
			g.base.limitHits, _ = flatKeyed(v, "max")
		}
		// Since Linux 6.12 a write to memory.peak restarts the peak seen through the
		// same descriptor (kept open in g.files); on older kernels the peak stays
		// cumulative, and the Manager made this a per-run group instead (PerRunLeaf).
		if err := g.put("", "memory.peak", "reset"); err != nil {
			return fmt.Errorf("reset %w", err)
		}
		if v, err := g.get("", "memory.current"); err == nil {
			g.base.usage, _ = parseInt(v)
		}
		return nil
	}
	for _, r := range [][2]string{{"cpuacct", "cpuacct.usage"}, {"memory", "memory.max_usage_in_bytes"}, {"memory", "memory.failcnt"}} {
		if err := g.put(r[0], r[1], "0"); err != nil {
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

// ProcsFiles returns cgroup.procs of every directory of the group, opened for writing
// once and owned by the group; a child that writes "0" to each joins the group itself,
// before exec, with no race.
// On a per-run group they are the current run's leaf's.
func (g *Group) ProcsFiles() ([]*os.File, error) {
	if g.perRun {
		if g.run == nil {
			return nil, errNoRun
		}
		return g.run.ProcsFiles()
	}
	if g.procs != nil {
		return g.procs, nil
	}
	var files []*os.File
	for _, d := range g.dirs {
		cf, err := g.ops().OpenFile(filepath.Join(d, "cgroup.procs"), os.O_WRONLY)
		if err != nil {
			for _, f := range files {
				f.Close()
			}
			return nil, fmt.Errorf("open cgroup.procs: %w", err)
		}
		f, ok := cf.(*os.File)
		if !ok {
			cf.Close()
			for _, f := range files {
				f.Close()
			}
			return nil, errors.New("open cgroup.procs: not a file descriptor")
		}
		files = append(files, f)
	}
	g.procs = files
	return files, nil
}

// CPU returns the CPU time used by all threads of the group since Reset.
func (g *Group) CPU() (time.Duration, error) {
	if g.perRun {
		if g.run == nil {
			return 0, errNoRun
		}
		return g.run.CPU()
	}
	var buf [512]byte
	n, err := g.cpu.ReadAt(buf[:], 0)
	if n == 0 && err != nil {
		return 0, fmt.Errorf("read cgroup cpu: %w", err)
	}
	if g.v2 {
		us, err := flatKeyed(string(buf[:n]), "usage_usec")
		return time.Duration(us)*time.Microsecond - g.base.cpu, err
	}
	ns, err := parseInt(string(buf[:n]))
	return time.Duration(ns), err
}

// Stats reads the group's counters since Reset. The peak does not include what earlier
// runs left charged to the group (page cache Settle could not reclaim), which Reset
// recorded. A per-run group reads its run's leaf, whose counters started at zero.
func (g *Group) Stats() (Stats, error) {
	if g.perRun {
		if g.run == nil {
			return Stats{}, errNoRun
		}
		return g.run.Stats()
	}
	var s Stats
	var err error
	if s.CPU, err = g.CPU(); err != nil {
		return s, err
	}
	if g.v2 {
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
	} else {
		v, err := g.get("memory", "memory.max_usage_in_bytes")
		if err != nil {
			return s, fmt.Errorf("read memory peak: %w", err)
		}
		s.MemoryPeak, _ = parseInt(v)
		if v, err := g.get("memory", "memory.oom_control"); err == nil {
			s.OOMKills, _ = flatKeyed(v, "oom_kill")
		}
		if v, err := g.get("memory", "memory.failcnt"); err == nil {
			s.LimitHits, _ = parseInt(v)
		}
	}
	// What was charged before the run is left out only when it is more than Settle
	// lets stay: a smaller remainder is mostly the kernel's per-CPU batch of charges
	// made in advance, from which the run's first pages are then taken without moving
	// the counter, so subtracting it would report almost nothing for a small run.
	if g.base.usage > LeftCharge {
		s.MemoryPeak = max(0, s.MemoryPeak-g.base.usage)
	}
	s.OOMKills = max(0, s.OOMKills-g.base.oomKills)
	s.LimitHits = max(0, s.LimitHits-g.base.limitHits)
	return s, nil
}

// LeftCharge is how much memory may stay charged to a group between runs (page cache
// of files a run read or wrote) before Settle reclaims it, so that the next run starts
// with its memory limit free and its peak not hidden by reclaim of someone else's cache.
const LeftCharge = 1 << 20

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

// Settle is called after a run whose processes have all been killed and reaped: it
// checks that the group is empty (killing anything listed, which cannot normally
// happen), reclaims memory the run left charged when that is over LeftCharge, and
// waits for what cannot be reclaimed (tmpfs, shared memory, kernel memory) to drain
// back to at most LeftCharge; ErrNotDrained when it does not in time. Any other error
// means the group cannot be trusted for another run either.
//
// A per-run group removes its run's leaf instead, waiting (EBUSY) while killed
// processes finish exiting; what the leaf had charged moves up to the group, whose
// own charge limits nothing (the limits are the leaf's).
func (g *Group) Settle() error {
	if g.perRun {
		return g.endRun()
	}
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
	c, usage, stat := "memory", "memory.usage_in_bytes", "memory.stat"
	if g.v2 {
		c, usage, stat = "", "memory.current", "memory.stat"
		if _, err := g.file(c, usage); err != nil {
			return nil // no memory controller here
		}
	}
	cur, err := g.charged(c, usage)
	if err != nil || cur <= LeftCharge {
		return err
	}
	reclaim := func() {
		if g.v2 {
			_ = g.put("", "memory.reclaim", strconv.FormatInt(cur, 10))
		} else {
			// Only possible with no task in the group.
			_ = g.put("memory", "memory.force_empty", "0")
		}
	}
	reclaim()
	deadline := time.Now().Add(DrainWait)
	for i := 0; ; i++ {
		cur, err = g.charged(c, usage)
		if err != nil {
			return err
		}
		if cur <= LeftCharge {
			return nil
		}
		// Page cache (not tmpfs) that could not be dropped yet — dirty pages being
		// written back — is reclaimed by the next run if it needs the room, as any
		// cache is; everything else would shrink its limit.
		if v, err := g.get(c, stat); err == nil {
			file, _ := flatKeyed(v, fileKey(g.v2))
			shmem, _ := flatKeyed(v, "shmem")
			if cur-max(0, file-shmem) <= LeftCharge {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: %d bytes still charged after %v", ErrNotDrained, cur, DrainWait)
		}
		time.Sleep(time.Millisecond)
		if i%20 == 19 {
			reclaim()
		}
	}
}

// fileKey is memory.stat's page cache (tmpfs included) key.
func fileKey(v2 bool) string {
	if v2 {
		return "file"
	}
	return "cache"
}

func (g *Group) charged(c, name string) (int64, error) {
	v, err := g.get(c, name)
	if err != nil {
		return 0, err
	}
	return parseInt(v)
}

// empty reports whether no process is left in the group. It reads counters through
// descriptors kept open (a kept v1 cgroup.procs does not see later changes): v2
// cgroup.events, or on v1 the pids hierarchy's pids.current, which counts every task of
// a run (a child joins all hierarchies before exec, and one that fails to exits).
func (g *Group) empty() bool {
	if g.v2 {
		v, err := g.get("", "cgroup.events")
		n, perr := flatKeyed(v, "populated")
		return err == nil && perr == nil && n == 0
	}
	v, err := g.get("pids", "pids.current")
	n, perr := parseInt(v)
	return err == nil && perr == nil && n == 0
}

// Kill sends SIGKILL to every process in the group: cgroup.kill on v2 when the kernel
// has it, else each pid listed in cgroup.procs until none is left.
func (g *Group) Kill() error {
	if g.perRun && g.run != nil {
		// Without cgroup.kill the slot's own cgroup.procs lists nothing: the leaf's does.
		if err := g.run.Kill(); err != nil {
			return err
		}
	}
	if g.v2 && exists(filepath.Join(g.dirs[""], "cgroup.kill")) {
		return writeOnce(g.ops(), filepath.Join(g.dirs[""], "cgroup.kill"), "1")
	}
	for range 100 {
		any := false
		for _, d := range g.dirs {
			b, err := readAll(g.ops(), filepath.Join(d, "cgroup.procs"))
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

// Destroy kills what is left and removes the group (a per-run group's current leaf
// first), waiting out EBUSY while killed processes exit. It is idempotent; after a
// failure a later call tries again.
func (g *Group) Destroy() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gone {
		return nil
	}
	if g.run != nil {
		if err := g.run.Destroy(); err != nil {
			return err // the parent cannot go while its leaf is there
		}
		g.run = nil
	}
	if g.cpu != nil {
		g.cpu.Close()
		g.cpu = nil
	}
	for k, f := range g.files {
		f.Close()
		delete(g.files, k)
	}
	for _, f := range g.procs {
		f.Close()
	}
	g.procs = nil
	var errs []error
	for _, d := range g.dirs {
		err := rmdirRetry(g.ops(), d, removeWait)
		if err != nil {
			_ = g.Kill()
			err = rmdirRetry(g.ops(), d, removeWaitKilled)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		g.gone = true
	}
	return errors.Join(errs...)
}
