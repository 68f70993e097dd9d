package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"oj/sandbox/cgroup"
	"oj/sandbox/ns"
)

// errCgroup marks a failure of the slot's cgroup (reset, or a run that left something
// in it): the slot is rebuilt before its next run.
var errCgroup = errors.New("sandbox: slot cgroup")

// run executes spec in slot s. Everything opened here is closed before it returns; the
// slot's cgroup is reset before the run and settled (checked empty) after it.
func (p *Pool) run(ctx context.Context, s *slot, spec Spec) (Result, error) {
	r := &runState{p: p, s: s, spec: spec, lim: p.cfg.withDefaults(spec.Limits)}
	defer r.cleanup()
	for _, step := range []func() error{r.begin, r.stdin, r.outputs, r.workDir, r.readOnly} {
		if err := step(); err != nil {
			return r.fail(err)
		}
	}
	nr, runErr := r.execute(ctx)
	r.closeStreams()
	if runErr != nil {
		return r.fail(runErr)
	}
	st, statErr, err := r.finish(nr)
	if err != nil {
		return r.fail(err)
	}
	return r.result(nr, st, statErr)
}

// runState is one run in the making: what run's steps set up and what cleanup closes.
type runState struct {
	p    *Pool
	s    *slot
	spec Spec
	lim  Limits
	g    cgroup.Group
	req  *ns.Request
	kill killer

	// A run that does not reach Settle leaves nothing behind either (a v2 per-run leaf
	// cgroup is removed; a reset-in-place group needs nothing until its next Reset).
	settled bool
	// closers go when the run is over; readEnds (capture pipes) only after their
	// readers drained them, or whatever the program wrote last would be lost; handed
	// (pipe ends only the run uses) as soon as the init has its copies (Request.Sent).
	closers, readEnds, handed []io.Closer
	// upper is the work dir's writable tmpfs, which lives as long as this descriptor:
	// it is closed, freeing what the run wrote, before the cgroup is settled.
	upper *os.File
	// watched are duplicates of the write ends of the output pipes whose reader reads
	// as fast as it can, for the stall meter (see watchPipe).
	watched []int
	stall   *stallMeter

	stdinCopy        chan struct{} // closed when a goroutine is done feeding stdin
	captures         sync.WaitGroup
	outCap, errCap   *capture
	outFile, errFile *os.File // the program's output files, when not captured
	outSize, errSize int64
	extras           []string // the read-only extras the request mounts
	hostWall         time.Duration
}

// fail is a run that ended in a sandbox failure, with the limits it had.
func (r *runState) fail(err error) (Result, error) {
	res, err := seResult(err)
	res.Limits = r.lim
	return res, err
}

// cleanup closes whatever is still open, and ends a run that never got to Settle.
func (r *runState) cleanup() {
	r.closeWatched()
	if r.upper != nil {
		r.upper.Close()
	}
	for _, c := range slices.Concat(r.handed, r.closers, r.readEnds) {
		c.Close()
	}
	if r.g != nil && !r.settled {
		_ = r.g.Abort() // on failure the leaf stays recorded: next Reset or Destroy retries
	}
}

// begin readies the slot, resets its cgroup for the run's limits and builds the
// request: argv, environment, uid, sizes, rlimits, the cgroup to join.
func (r *runState) begin() error {
	p, s, lim := r.p, r.s, r.lim
	if err := p.ready(s); err != nil {
		return fmt.Errorf("sandbox: restart slot: %w", err)
	}
	if err := s.cg.Reset(cgroup.Limits{Memory: lim.Memory, Pids: int64(lim.Pids)}); err != nil {
		return fmt.Errorf("%w: %w", errCgroup, err)
	}
	r.g = s.cg // from here on, a run that does not reach Settle is aborted
	req := &ns.Request{
		Args: r.spec.Args, Env: r.spec.Env, UID: uint32(s.uid), GID: uint32(s.uid),
		WorkSize: uint64(p.cfg.WorkDirBytes), TmpSize: uint64(p.cfg.TmpBytes), ShmSize: uint64(p.cfg.ShmBytes),
	}
	if req.Env == nil {
		req.Env = p.cfg.Env
	}
	req.Rlimits[ns.RlimitStack] = uint64(lim.Stack)
	req.Rlimits[ns.RlimitFsize] = uint64(lim.FileSize)
	req.Rlimits[ns.RlimitNofile] = uint64(lim.OpenFiles)
	req.Rlimits[ns.RlimitCPU] = uint64((lim.CPU+time.Second-1)/time.Second) + 1
	var err error
	if req.Cgroup, err = r.g.ProcsFiles(); err != nil {
		return fmt.Errorf("%w: %w", errCgroup, err)
	}
	req.Sent = func() {
		r.closeHanded()
		if r.spec.OnStart != nil {
			r.spec.OnStart()
		}
	}
	r.req = req
	r.kill.stop = s.ns.Kill
	return nil
}

// killer kills a run once, remembering why (the first reason wins). Once the run has
// ended it kills nothing: a watcher that fires late must not reach the slot's next run.
type killer struct {
	stop  func()
	mu    sync.Mutex
	ended bool
	st    Status
	msg   string
}

// killFor kills the run for st, explained by msg, unless it was killed already or has
// ended.
func (k *killer) killFor(st Status, msg string) {
	k.killWhen(func() (Status, string, bool) { return st, msg, true })
}

// killWhen kills the run for the reason cond gives when cond says so, unless it was
// killed already or has ended, and reports whether the watcher has nothing left to
// watch. cond runs under the lock, so that nothing reads the slot's cgroup once end has
// returned (the slot's next run may be resetting it), and the kill is sent under it:
// it is on the slot's socket before end returns, ahead of any later run.
func (k *killer) killWhen(cond func() (Status, string, bool)) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.ended || k.st != "" {
		return true
	}
	st, msg, kill := cond()
	if !kill {
		return false
	}
	k.st, k.msg = st, msg
	k.stop()
	return true
}

// end marks the run over: later kills are ignored.
func (k *killer) end() {
	k.mu.Lock()
	k.ended = true
	k.mu.Unlock()
}

// reason is why the run was killed ("" if it was not).
func (k *killer) reason() (Status, string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.st, k.msg
}

// stalledSE is the killer's mark for a run given up because the host held it up past
// Config.MaxStall: reported as SE with Result.HostBusy set, so that the judge can tell
// a host too busy to judge from a sandbox that failed.
const stalledSE Status = "SE:stalled"

// execute runs the request in the slot while watching CPU, wall time and the context.
// Wall time is counted from the program's start and without the run's stall (see
// stallMeter): when the wall timer fires, the time the host held the run up so far is
// read and the timer set again for what is left, until the program has had its whole
// wall limit to itself.
func (r *runState) execute(ctx context.Context) (ns.Result, error) {
	lim, g := r.lim, r.g
	start := time.Now()
	r.stall = newStallMeter(start, lim.Wall, g.Threads, r.watched)
	maxStall := time.Duration(r.p.cfg.MaxStall * float64(lim.Wall))
	stop := make(chan struct{})
	stalledOut := func(now time.Time) (Status, string, bool) {
		setup, stalled := r.stall.setup(now), r.stall.stalled(now)
		if setup+stalled > maxStall {
			return stalledSE, fmt.Sprintf("the host held the run up for %v (starting it %v, then waiting for a CPU or for "+
				"its output to be read %v of %v), over sandbox.max_stall × its wall limit (%v): the host is too busy to judge it",
				(setup + stalled).Round(time.Millisecond), setup.Round(time.Millisecond), stalled.Round(time.Millisecond),
				r.stall.elapsed(now).Round(time.Millisecond), maxStall), true
		}
		return "", "", false
	}
	overCPU := func() (Status, string, bool) {
		now := time.Now()
		r.stall.sample(now, false)
		if st, msg, kill := stalledOut(now); kill {
			return st, msg, kill
		}
		if cpu, err := g.CPU(); err != nil || cpu <= lim.CPU {
			return "", "", false
		}
		return TLE, fmt.Sprintf("CPU time over %v", lim.CPU), true
	}
	var left time.Duration // wall time the run still has, once the timer fired
	overWall := func() (Status, string, bool) {
		now := time.Now()
		r.stall.sample(now, true)
		if st, msg, kill := stalledOut(now); kill {
			return st, msg, kill
		}
		stalled := r.stall.stalled(now)
		if left = lim.Wall - (r.stall.elapsed(now) - stalled); left > 0 {
			return "", "", false
		}
		if !r.stall.idle() {
			left = r.p.cfg.PollInterval // it wants a CPU now, or it has ended: look again soon
			return "", "", false
		}
		return TLE, fmt.Sprintf("wall time over %v (not counting %v the host stalled the run)", lim.Wall, stalled.Round(time.Millisecond)), true
	}
	go func() {
		tick := time.NewTicker(r.p.cfg.PollInterval)
		defer tick.Stop()
		wall := time.NewTimer(lim.Wall)
		defer wall.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				r.kill.killFor(SE, "canceled: "+ctx.Err().Error())
				return
			case <-wall.C:
				if r.kill.killWhen(overWall) {
					return
				}
				wall.Reset(left)
			case <-tick.C:
				if r.kill.killWhen(overCPU) {
					return
				}
			}
		}
	}()
	nr, err := r.s.ns.Run(r.req)
	// The watcher stops on its own; the run does not wait for it to be scheduled.
	r.kill.end()
	close(stop)
	r.hostWall = time.Since(start)
	if err == nil && r.req.ReplaceExtras && nr.SetupError == "" {
		r.s.extras = r.extras
	} else if r.req.ReplaceExtras {
		r.s.extras = nil // unknown state: replace next time
	}
	return nr, err
}
