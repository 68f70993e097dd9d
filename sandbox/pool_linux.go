package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"oj/sandbox/cgroup"
	"oj/sandbox/ns"
	"oj/sandbox/seccomp"
)

// Pool runs sandboxed programs on a fixed set of pre-created environments. It is safe
// for concurrent use; Run blocks while every slot is busy.
type Pool struct {
	cfg     Config
	cg      *cgroup.Manager
	bpf     []byte
	binds   []string
	devnull *os.File
	free    chan *slot
	slots   []*slot

	mu      sync.Mutex
	closed  bool
	running sync.WaitGroup
	leaked  []cgroup.Group // cgroups whose removal failed; retried by Close

	reaped  []string // cgroups of dead pools removed at start
	reapErr error

	dynmods    cgroup.Dynmods // what Config.FavorDynmods found or did at start
	dynmodsErr error
}

// Reaped returns the cgroup directories of dead workers' pools that NewPool removed,
// and what it could not remove.
func (p *Pool) Reaped() ([]string, error) { return p.reaped, p.reapErr }

// slot is one environment: an init in its namespaces, the cgroup its runs use (kept for
// the slot's life and reset between runs: creating and removing one per run cost more
// than the run; on v2 without a resettable memory.peak it is the parent of a leaf per
// run, and the init stays in the pool's own cgroup either way), the uid its runs use,
// and the extra read-only mounts it currently has.
type slot struct {
	id     int
	ns     *ns.Slot
	cg     cgroup.Group
	uid    int
	extras []string
	gen    int  // how many times the slot's cgroup was replaced, for its name
	stale  bool // the last run's memory charge did not drain: replace the cgroup
}

var poolSeq atomic.Uint64

// NewPool detects the cgroup hierarchy, builds the seccomp filter and starts
// cfg.PoolSize sandbox inits. It needs root (or CAP_SYS_ADMIN and friends) and a
// binary whose main calls MaybeRunChild first.
func NewPool(cfg Config) (*Pool, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if os.Geteuid() != 0 {
		return nil, errors.New("sandbox: must run as root to create namespaces and cgroups")
	}
	bpf, err := seccomp.Build()
	if err != nil {
		return nil, err
	}
	parent := cfg.CgroupParent + "/" + poolName(poolSeq.Add(1))
	cg, err := cgroup.Detect(parent, cfg.CgroupVersion)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	// What pools of killed workers left is removed now; a failure there does not stop
	// this pool, and the next start tries again (see Reaped).
	reaped, reapErr := cg.ReapSiblings(deadPool)
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		_ = cg.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	p := &Pool{cfg: cfg, cg: cg, bpf: bpf, devnull: devnull, free: make(chan *slot, cfg.PoolSize),
		reaped: reaped, reapErr: reapErr}
	if cfg.FavorDynmods {
		// Not fatal: runs are as correct without it, each join only slower.
		p.dynmods, p.dynmodsErr = cgroup.FavorDynmods()
	}
	p.binds = append(append([]string{}, cfg.ReadOnly...), cfg.EtcFiles...)
	errs := make([]error, cfg.PoolSize)
	p.slots = make([]*slot, cfg.PoolSize)
	var wg sync.WaitGroup
	for i := range cfg.PoolSize {
		wg.Go(func() {
			p.slots[i] = &slot{id: i, uid: cfg.UIDBase + i}
			errs[i] = p.ready(p.slots[i])
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		_ = p.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	for _, s := range p.slots {
		p.free <- s
	}
	return p, nil
}

// start (re)starts a slot's init.
func (p *Pool) start(s *slot) error {
	root, err := os.MkdirTemp(p.cfg.StateDir, "oj-sandbox-root-")
	if err != nil {
		return fmt.Errorf("slot root: %w", err)
	}
	// The init pivots into its own tmpfs; the host directory is only the mount point
	// it started from and is empty again once it has.
	defer os.Remove(root)
	n, err := ns.Start(ns.SlotConfig{RootDir: root, ReadOnly: p.binds, Seccomp: p.bpf})
	if err != nil {
		return err
	}
	s.ns, s.extras = n, nil
	return nil
}

// ready (re)creates what a slot is missing: its cgroup, its init.
func (p *Pool) ready(s *slot) error {
	if s.cg == nil {
		g, err := p.cg.Create(fmt.Sprintf("slot-%d-%d", s.id, s.gen))
		if err != nil {
			return err
		}
		s.cg = g
		s.gen++
	}
	if s.ns == nil {
		return p.start(s)
	}
	return nil
}

// repair throws away a slot's init (after a failure) and/or its cgroup (after a failure,
// or when a run's memory charge did not drain: removing the cgroup takes what stays
// charged out of every later run's way); ready rebuilds them before the slot's next
// run. Stopping the init kills every process of its namespaces, and a run's processes
// are all dead when it returns, so the cgroup is empty when it is removed.
func (p *Pool) repair(s *slot, init, cg bool) {
	if init && s.ns != nil {
		_ = s.ns.Close()
		s.ns = nil
	}
	s.stale = false
	if cg && s.cg != nil {
		if err := s.cg.Destroy(); err != nil {
			p.mu.Lock()
			p.leaked = append(p.leaked, s.cg)
			p.mu.Unlock()
		}
		s.cg = nil
	}
	_ = p.ready(s) // a failure is retried by the next run
}

// Config returns the pool's configuration.
func (p *Pool) Config() Config { return p.cfg }

// CgroupVersion reports the cgroup hierarchy in use (1 or 2).
func (p *Pool) CgroupVersion() int { return p.cg.Version() }

// Dynmods says whether joining a cgroup is cheap on this host (cgroup.FavorDynmods), as
// found or set at start, and why not when it could not be set. The zero value and a nil
// error: Config.FavorDynmods was false.
func (p *Pool) Dynmods() (cgroup.Dynmods, error) { return p.dynmods, p.dynmodsErr }

// Run runs spec in a free slot and waits for it (or for ctx, which kills the run).
// err is non-nil exactly when Status is SE, with the same text in Result.Error.
func (p *Pool) Run(ctx context.Context, spec Spec) (Result, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return seResult(ErrClosed)
	}
	p.running.Add(1)
	p.mu.Unlock()
	defer p.running.Done()
	if err := p.check(&spec); err != nil {
		return seResult(err)
	}
	var s *slot
	select {
	case s = <-p.free:
	case <-ctx.Done():
		return seResult(fmt.Errorf("sandbox: waiting for a slot: %w", ctx.Err()))
	}
	res, err := p.run(ctx, s, spec)
	if errors.Is(err, ns.ErrSlotBroken) || errors.Is(err, errCgroup) || s.stale {
		broken, badCgroup := errors.Is(err, ns.ErrSlotBroken), errors.Is(err, errCgroup)
		p.repair(s, broken || badCgroup, badCgroup || s.stale)
	}
	p.free <- s
	return res, err
}

func seResult(err error) (Result, error) {
	return Result{Status: SE, ExitCode: -1, Error: err.Error()}, err
}

// check validates what the caller controls.
func (p *Pool) check(spec *Spec) error {
	if len(spec.Args) == 0 || spec.Args[0] == "" {
		return errors.New("sandbox: empty Args")
	}
	n := 0
	for _, set := range []bool{spec.Stdin != nil, spec.StdinFile != nil, spec.StdinPath != ""} {
		if set {
			n++
		}
	}
	if n > 1 {
		return errors.New("sandbox: set at most one of Stdin, StdinFile, StdinPath")
	}
	if spec.StdoutFile != nil && spec.StdoutPath != "" || spec.StderrFile != nil && spec.StderrPath != "" {
		return errors.New("sandbox: set at most one of StdoutFile/StdoutPath and of StderrFile/StderrPath")
	}
	for _, ro := range spec.ReadOnly {
		if !filepath.IsAbs(ro) || filepath.Clean(ro) != ro || ro == "/" {
			return fmt.Errorf("sandbox: read-only path %q must be a clean absolute path other than /", ro)
		}
		if reserved := ReservedDir(ro); reserved != "" {
			return fmt.Errorf("sandbox: read-only path %q is inside the sandbox's own %s", ro, reserved)
		}
	}
	if spec.Dir != "" {
		if st, err := os.Stat(spec.Dir); err != nil || !st.IsDir() {
			return fmt.Errorf("sandbox: work dir %q is not a directory", spec.Dir)
		}
	}
	return nil
}

// Close waits for running runs, stops every slot (killing anything left in its
// namespaces) and removes the pool's cgroups. It is idempotent.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	p.running.Wait()
	var errs []error
	for _, s := range p.slots {
		if s != nil && s.ns != nil {
			errs = append(errs, s.ns.Close())
		}
	}
	// Every process of every run died with its slot's init.
	for _, s := range p.slots {
		if s != nil && s.cg != nil {
			errs = append(errs, s.cg.Destroy())
		}
	}
	p.mu.Lock()
	leaked := p.leaked
	p.mu.Unlock()
	for _, g := range leaked {
		errs = append(errs, g.Destroy())
	}
	if p.cg != nil {
		errs = append(errs, p.cg.Close())
	}
	if p.devnull != nil {
		p.devnull.Close()
	}
	return errors.Join(errs...)
}
