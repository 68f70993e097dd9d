package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Limits are applied to a run's cgroup when it is created.
type Limits struct {
	// Memory is the memory limit in bytes (swap is disabled: memory+swap = Memory).
	Memory int64
	// Pids caps processes plus threads.
	Pids int64
}

// Stats are read from a run's cgroup after (or during) the run.
type Stats struct {
	// CPU is user+system time over every thread that ran in the cgroup.
	CPU time.Duration
	// MemoryPeak is the highest memory usage in bytes (page cache included).
	MemoryPeak int64
	// OOMKills counts processes the kernel's OOM killer killed in the cgroup.
	OOMKills int64
	// LimitHits counts allocations that hit the limit (v1 memory.failcnt, v2 max events).
	LimitHits int64
	// NoPeak says the kernel keeps no peak (cgroup v2 before Linux 5.19): MemoryPeak is
	// only what was still charged at the end, and the caller should use a figure of its
	// own as well (wait4's ru_maxrss).
	NoPeak bool
}

// Manager creates run cgroups under one parent. It is safe for concurrent use.
type Manager struct {
	v2      bool
	fs      fsys
	v2root  string            // the cgroup2 mount point
	parents map[string]string // controller (v1) or "" (v2) → absolute parent dir
	created []string          // directories we made, deepest last, removed by Close
	mu      sync.Mutex

	// perRun (v2): memory.peak cannot be restarted, so groups give each run a fresh
	// leaf (v2LeafGroup); perRunWhy says what the probe found.
	perRun    bool
	perRunWhy string
}

// v1Controllers are the hierarchies a v1 run joins.
var v1Controllers = []string{"memory", "cpuacct", "pids"}

// Detect finds the cgroup hierarchy and creates parent. A relative parent is taken from
// this process's own cgroup, an absolute one from the hierarchy's root. version is 0
// (auto: v1 when a v1 memory hierarchy is mounted, else v2), 1 or 2.
func Detect(parent string, version int) (*Manager, error) {
	mi, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("detect cgroups: %w", err)
	}
	mounts, err := cgroupMounts(mi)
	mi.Close()
	if err != nil {
		return nil, fmt.Errorf("detect cgroups: %w", err)
	}
	sc, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return nil, fmt.Errorf("detect cgroups: %w", err)
	}
	self, err := selfCgroups(sc)
	sc.Close()
	if err != nil {
		return nil, fmt.Errorf("detect cgroups: %w", err)
	}
	parents, v2, err := plan(mounts, self, parent, version)
	if err != nil {
		return nil, err
	}
	m := &Manager{v2: v2, fs: osFS{}, parents: parents}
	for _, mp := range mounts {
		if mp.v2 && m.v2root == "" {
			m.v2root = mp.dir
		}
	}
	if err := m.setup(); err != nil {
		_ = m.Close()
		return nil, err
	}
	m.probe()
	return m, nil
}

// ops returns the Manager's cgroupfs.
func (m *Manager) ops() fsys {
	if m.fs == nil {
		return osFS{}
	}
	return m.fs
}

// plan picks the hierarchy and computes the parent directory per controller.
func plan(mounts []mountPoint, self map[string]string, parent string, version int) (map[string]string, bool, error) {
	join := func(mp mountPoint, own string) (string, error) {
		rel := parent
		if !path.IsAbs(parent) {
			o := strings.TrimPrefix(own, mp.root)
			if mp.root != "/" && len(o) == len(own) {
				return "", fmt.Errorf("cgroup %s is outside the mount %s", own, mp.dir)
			}
			rel = path.Join("/", o, parent)
		}
		return filepath.Join(mp.dir, filepath.Clean("/"+rel)), nil
	}
	v1 := map[string]mountPoint{}
	var unified *mountPoint
	for i, mp := range mounts {
		if mp.v2 {
			if unified == nil {
				unified = &mounts[i]
			}
			continue
		}
		for _, o := range mp.opts {
			if _, ok := v1[o]; !ok {
				v1[o] = mp
			}
		}
	}
	useV1 := version == 1 || (version == 0 && v1["memory"].dir != "")
	if useV1 {
		out := map[string]string{}
		for _, c := range v1Controllers {
			mp, ok := v1[c]
			if !ok {
				return nil, false, fmt.Errorf("cgroup v1: controller %s is not mounted", c)
			}
			own, ok := self[c]
			if !ok {
				return nil, false, fmt.Errorf("cgroup v1: no %s entry in /proc/self/cgroup", c)
			}
			p, err := join(mp, own)
			if err != nil {
				return nil, false, err
			}
			out[c] = p
		}
		return out, false, nil
	}
	if unified == nil {
		return nil, false, errors.New("cgroup: neither a v1 memory hierarchy nor cgroup2 is mounted")
	}
	own, ok := self[""]
	if !ok {
		return nil, false, errors.New("cgroup v2: no 0:: entry in /proc/self/cgroup")
	}
	// A process that already sits in the "supervisor" leaf (moved there by an earlier
	// pool of this process, or born in it: a restarted worker's children, the tests'
	// helper processes) plans from the cgroup above it, as the pool that made the leaf
	// did: every pool of one service then shares one parent, where a starting pool can
	// find and reap the pools of dead processes, instead of nesting a new supervisor
	// level per start.
	if path.Base(own) == supervisorLeaf {
		own = path.Dir(own)
	}
	p, err := join(*unified, own)
	if err != nil {
		return nil, false, err
	}
	return map[string]string{"": p}, true, nil
}

// Version is 1 or 2.
func (m *Manager) Version() int {
	if m.v2 {
		return 2
	}
	return 1
}

// Parents returns the parent directory per controller ("" on v2), for diagnostics.
func (m *Manager) Parents() map[string]string { return m.parents }

func (m *Manager) setup() error {
	for _, p := range m.parents {
		if err := m.mkdirAll(p); err != nil {
			return err
		}
	}
	if m.v2 {
		return enableV2(m.v2root, m.parents[""])
	}
	return nil
}

func (m *Manager) mkdirAll(p string) error {
	var missing []string
	for d := p; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if d == "/" {
			break
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create cgroup %s: %w", missing[i], err)
		}
		m.created = append(m.created, missing[i])
	}
	return nil
}

// enableV2 turns on the memory and pids controllers on the path from the hierarchy's
// root down to parent, wherever a level does not have them yet. A cgroup with processes
// cannot enable controllers for its children ("no internal processes"), so when our own
// cgroup is in the way its processes are moved into a leaf named "supervisor" first —
// the usual layout of a Delegate=yes service.
func enableV2(root, parent string) error {
	var chain []string // parent first, root last
	for d := parent; ; d = filepath.Dir(d) {
		chain = append(chain, d)
		if d == root || !strings.HasPrefix(d, root+"/") {
			break
		}
	}
	for i := len(chain) - 1; i >= 1; i-- {
		if hasControllers(chain[i-1]) {
			continue
		}
		if err := subtreeEnable(chain[i]); err != nil {
			return err
		}
	}
	return subtreeEnable(parent)
}

var v2Controllers = []string{"memory", "pids"}

func hasControllers(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return false
	}
	have := strings.Fields(string(b))
	for _, c := range v2Controllers {
		if !slices.Contains(have, c) {
			return false
		}
	}
	return true
}

func subtreeEnable(dir string) error {
	ctl := filepath.Join(dir, "cgroup.subtree_control")
	have, _ := os.ReadFile(ctl)
	var add []string
	for _, c := range v2Controllers {
		if !slices.Contains(strings.Fields(string(have)), c) {
			add = append(add, "+"+c)
		}
	}
	if len(add) == 0 {
		return nil
	}
	val := []byte(strings.Join(add, " "))
	err := os.WriteFile(ctl, val, 0)
	if errors.Is(err, syscall.EBUSY) {
		if err := evacuate(dir); err != nil {
			return err
		}
		err = os.WriteFile(ctl, val, 0)
	}
	if err != nil {
		return fmt.Errorf("enable %v in %s: %w", add, ctl, err)
	}
	return nil
}

// supervisorLeaf is the leaf a cgroup's own processes move into so that controllers
// can be enabled for its children (see enableV2).
const supervisorLeaf = "supervisor"

// evacuate moves every process of dir into dir/supervisor.
func evacuate(dir string) error {
	leaf := filepath.Join(dir, supervisorLeaf)
	if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s: %w", leaf, err)
	}
	for range 10 {
		data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		if err != nil {
			return err
		}
		pids := strings.Fields(string(data))
		if len(pids) == 0 {
			return nil
		}
		for _, p := range pids {
			_ = os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(p), 0)
		}
	}
	return fmt.Errorf("cannot move the processes of %s into %s", dir, leaf)
}

// Close removes the parent directories Detect created (they must be empty).
func (m *Manager) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var errs []error
	for i := len(m.created) - 1; i >= 0; i-- {
		timeout := 2 * time.Second
		if !m.deepest(m.created[i]) {
			timeout = 0 // a shared ancestor ("oj") stays while another pool uses it
		}
		if err := rmdirRetry(m.ops(), m.created[i], timeout); err != nil && timeout > 0 {
			errs = append(errs, err)
		}
	}
	m.created = nil
	return errors.Join(errs...)
}

func (m *Manager) deepest(dir string) bool {
	for _, p := range m.parents {
		if p == dir {
			return true
		}
	}
	return false
}

// rmdirRetry removes a cgroup directory, retrying while killed processes finish exiting.
func rmdirRetry(fs fsys, dir string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	wait := 100 * time.Microsecond
	for {
		err := fs.Rmdir(dir)
		if err == nil || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		if (!errors.Is(err, syscall.EBUSY) && !errors.Is(err, syscall.EAGAIN)) || time.Now().After(deadline) {
			return fmt.Errorf("remove cgroup %s: %w", dir, err)
		}
		time.Sleep(wait)
		wait = min(wait*2, 20*time.Millisecond)
	}
}
