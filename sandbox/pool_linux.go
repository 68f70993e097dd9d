package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	seq     atomic.Uint64

	mu      sync.Mutex
	closed  bool
	running sync.WaitGroup
	bg      sync.WaitGroup  // background cgroup creation and removal
	leaked  []*cgroup.Group // cgroups whose removal failed; retried by Close
}

// slot is one environment: an init in its namespaces, the uid its runs use, and the
// extra read-only mounts it currently has.
type slot struct {
	ns     *ns.Slot
	uid    int
	extras []string
	// next is the cgroup for the slot's next run, created in the background after the
	// previous run so that mkdir is off the run's critical path.
	next chan *cgroup.Group
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
	parent := fmt.Sprintf("%s/pool-%d-%d", cfg.CgroupParent, os.Getpid(), poolSeq.Add(1))
	cg, err := cgroup.Detect(parent, cfg.CgroupVersion)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		_ = cg.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	p := &Pool{cfg: cfg, cg: cg, bpf: bpf, devnull: devnull, free: make(chan *slot, cfg.PoolSize)}
	p.binds = append(append([]string{}, cfg.ReadOnly...), cfg.EtcFiles...)
	errs := make([]error, cfg.PoolSize)
	p.slots = make([]*slot, cfg.PoolSize)
	var wg sync.WaitGroup
	for i := range cfg.PoolSize {
		wg.Go(func() {
			p.slots[i] = &slot{uid: cfg.UIDBase + i, next: make(chan *cgroup.Group, 1)}
			errs[i] = p.start(p.slots[i])
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

// Config returns the pool's configuration.
func (p *Pool) Config() Config { return p.cfg }

// CgroupVersion reports the cgroup hierarchy in use (1 or 2).
func (p *Pool) CgroupVersion() int { return p.cg.Version() }

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
	if errors.Is(err, ns.ErrSlotBroken) {
		_ = s.ns.Close()
		if serr := p.start(s); serr != nil {
			// Keep the slot in circulation; the next run will retry the start.
			s.ns = nil
		}
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
		for _, reserved := range []string{WorkDir, "/tmp", "/proc", "/dev"} {
			if ro == reserved || strings.HasPrefix(ro, reserved+"/") {
				return fmt.Errorf("sandbox: read-only path %q is inside the sandbox's own %s", ro, reserved)
			}
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
	p.bg.Wait()
	var errs []error
	for _, s := range p.slots {
		if s == nil {
			continue
		}
		select {
		case g := <-s.next:
			errs = append(errs, g.Destroy())
		default:
		}
	}
	for _, s := range p.slots {
		if s != nil && s.ns != nil {
			errs = append(errs, s.ns.Close())
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

// cgroupFor returns a cgroup for a run in s: the one prepared in the background, or a
// new one.
func (p *Pool) cgroupFor(s *slot) (*cgroup.Group, error) {
	select {
	case g := <-s.next:
		return g, nil
	default:
		return p.cg.Create(fmt.Sprintf("run-%d", p.seq.Add(1)))
	}
}

// recycle removes a used cgroup and prepares the slot's next one, in the background.
// A cgroup whose removal keeps failing is kept for Close to retry: never leaked.
func (p *Pool) recycle(s *slot, used *cgroup.Group) {
	p.bg.Go(func() {
		if err := used.Destroy(); err != nil {
			p.mu.Lock()
			p.leaked = append(p.leaked, used)
			p.mu.Unlock()
		}
		p.mu.Lock()
		closed := p.closed
		p.mu.Unlock()
		if closed {
			return
		}
		if g, err := p.cg.Create(fmt.Sprintf("run-%d", p.seq.Add(1))); err == nil {
			select {
			case s.next <- g:
			default:
				_ = g.Destroy()
			}
		}
	})
}
