package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
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
	lim := p.cfg.withDefaults(spec.Limits)
	fail := func(err error) (Result, error) {
		r, err := seResult(err)
		r.Limits = lim
		return r, err
	}
	if err := p.ready(s); err != nil {
		return fail(fmt.Errorf("sandbox: restart slot: %w", err))
	}
	g := s.cg
	if err := g.Reset(cgroup.Limits{Memory: lim.Memory, Pids: int64(lim.Pids)}); err != nil {
		return fail(fmt.Errorf("%w: %w", errCgroup, err))
	}
	// A run that does not reach Settle leaves nothing behind either (a v2 per-run leaf
	// cgroup is removed; a reset-in-place group needs nothing until its next Reset).
	settled := false
	defer func() {
		if !settled {
			_ = g.Abort() // on failure the leaf stays recorded: next Reset or Destroy retries
		}
	}()

	// closers go when the run is over; readEnds (capture pipes) only after their readers
	// drained them, or whatever the program wrote last would be lost.
	var closers, readEnds []io.Closer
	defer func() {
		for _, c := range append(closers, readEnds...) {
			c.Close()
		}
	}()
	req := &ns.Request{
		Args: spec.Args, Env: spec.Env, UID: uint32(s.uid), GID: uint32(s.uid),
		WorkSize: uint64(p.cfg.WorkDirBytes), TmpSize: uint64(p.cfg.TmpBytes), ShmSize: uint64(p.cfg.ShmBytes),
	}
	if req.Env == nil {
		req.Env = p.cfg.Env
	}
	req.Rlimits[ns.RlimitStack] = uint64(lim.Stack)
	req.Rlimits[ns.RlimitFsize] = uint64(lim.Output)
	req.Rlimits[ns.RlimitNofile] = uint64(lim.OpenFiles)
	req.Rlimits[ns.RlimitCPU] = uint64((lim.CPU+time.Second-1)/time.Second) + 1
	var err error
	if req.Cgroup, err = g.ProcsFiles(); err != nil {
		return fail(fmt.Errorf("%w: %w", errCgroup, err))
	}

	var killOnce sync.Once
	var killedFor Status
	var killMsg string
	var killMu sync.Mutex
	killFor := func(st Status, msg string) {
		killOnce.Do(func() {
			killMu.Lock()
			killedFor, killMsg = st, msg
			killMu.Unlock()
			s.ns.Kill()
		})
	}

	// Standard input.
	var stdinCopy chan struct{}
	switch {
	case spec.StdinFile != nil:
		req.Stdin = spec.StdinFile
	case spec.StdinPath != "":
		f, err := os.Open(spec.StdinPath)
		if err != nil {
			return fail(fmt.Errorf("sandbox: stdin: %w", err))
		}
		closers = append(closers, f)
		req.Stdin = f
	case spec.Stdin != nil:
		r, w, err := os.Pipe()
		if err != nil {
			return fail(fmt.Errorf("sandbox: stdin pipe: %w", err))
		}
		closers = append(closers, r, w)
		req.Stdin = r
		if l, ok := spec.Stdin.(interface{ Len() int }); ok && l.Len() <= pipeAtomic {
			// Fits in the pipe's buffer whatever its size: written now, no goroutine.
			_, _ = io.Copy(w, spec.Stdin)
			w.Close()
			break
		}
		stdinCopy = make(chan struct{})
		go func() {
			defer close(stdinCopy)
			_, _ = io.Copy(w, spec.Stdin)
			w.Close()
		}()
	default:
		req.Stdin = p.devnull
	}

	// Standard output and error.
	var captures sync.WaitGroup
	var outCap, errCap *capture
	var outFile, errFile *os.File
	output := func(file *os.File, path string, capBytes int, name string) (*os.File, *capture, *os.File, error) {
		switch {
		case file != nil:
			return file, nil, file, nil
		case path != "":
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o644)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("sandbox: %s: %w", name, err)
			}
			closers = append(closers, f)
			return f, nil, f, nil
		}
		r, w, err := os.Pipe()
		if err != nil {
			return nil, nil, nil, fmt.Errorf("sandbox: %s pipe: %w", name, err)
		}
		closers = append(closers, w)
		readEnds = append(readEnds, r)
		if capBytes <= 0 {
			capBytes = p.cfg.CaptureBytes
		}
		c := &capture{max: capBytes, limit: lim.Output, over: func() {
			killFor(OLE, fmt.Sprintf("%s over %d bytes", name, lim.Output))
		}}
		captures.Go(func() { c.drain(r) })
		return w, c, nil, nil
	}
	if req.Stdout, outCap, outFile, err = output(spec.StdoutFile, spec.StdoutPath, spec.StdoutCap, "stdout"); err != nil {
		return fail(err)
	}
	if req.Stderr, errCap, errFile, err = output(spec.StderrFile, spec.StderrPath, spec.StderrCap, "stderr"); err != nil {
		return fail(err)
	}

	// The work dir (Dir read-only under a fresh tmpfs for the run's writes) and the
	// extra read-only paths. The upper tmpfs lives as long as our descriptor: it is
	// closed, freeing what the run wrote, before the cgroup is settled.
	var upper *os.File
	defer func() {
		if upper != nil {
			upper.Close()
		}
	}()
	if spec.Dir != "" {
		t, err := ns.OpenTree(spec.Dir, true)
		if err != nil {
			return fail(fmt.Errorf("sandbox: work dir: %w", err))
		}
		closers = append(closers, t)
		if upper, err = ns.NewTmpfs(p.cfg.WorkDirBytes); err != nil {
			return fail(fmt.Errorf("sandbox: work dir: %w", err))
		}
		req.WorkTree, req.WorkUpper = t, upper
	}
	extras := p.extras(spec.ReadOnly)
	if !slices.Equal(extras, s.extras) {
		req.ReplaceExtras = true
		for _, e := range extras {
			t, err := ns.OpenTree(e, true)
			if err != nil {
				return fail(fmt.Errorf("sandbox: read-only path: %w", err))
			}
			closers = append(closers, t)
			req.Extras = append(req.Extras, ns.Mount{Target: e, Tree: t})
		}
	}

	// Watch CPU, wall time and the context while the slot runs the program.
	start := time.Now()
	stop := make(chan struct{})
	var watch sync.WaitGroup
	watch.Go(func() {
		tick := time.NewTicker(p.cfg.PollInterval)
		defer tick.Stop()
		wall := time.NewTimer(lim.Wall)
		defer wall.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				killFor(SE, "canceled: "+ctx.Err().Error())
				return
			case <-wall.C:
				killFor(TLE, fmt.Sprintf("wall time over %v", lim.Wall))
				return
			case <-tick.C:
				if cpu, err := g.CPU(); err == nil && cpu > lim.CPU {
					killFor(TLE, fmt.Sprintf("CPU time over %v", lim.CPU))
					return
				}
			}
		}
	})
	nr, runErr := s.ns.Run(req)
	close(stop)
	watch.Wait()
	hostWall := time.Since(start)
	if runErr == nil && req.ReplaceExtras && nr.SetupError == "" {
		s.extras = extras
	} else if req.ReplaceExtras {
		s.extras = nil // unknown state: replace next time
	}
	var outSize, errSize int64
	if outFile != nil {
		outSize = fileSize(outFile)
	}
	if errFile != nil {
		errSize = fileSize(errFile)
	}
	// Our copies of the pipes' write ends go now; every process of the run is dead, so
	// the readers see EOF.
	for _, c := range closers {
		c.Close()
	}
	closers = nil
	captures.Wait()
	for _, r := range readEnds {
		r.Close()
	}
	readEnds = nil
	if stdinCopy != nil {
		<-stdinCopy
	}
	if runErr != nil {
		return fail(runErr)
	}
	var wbErr error
	if upper != nil {
		if nr.SetupError == "" && !spec.DiscardWrites {
			wbErr = writeBack(upper, spec.Dir)
		}
		upper.Close()
		upper = nil
	}
	st, statErr := g.Stats()
	settled = true
	if err := g.Settle(); errors.Is(err, cgroup.ErrNotDrained) {
		// The run itself is measured and over; only the slot cannot be trusted with
		// its memory charge for the next one.
		s.stale = true
	} else if err != nil {
		return fail(fmt.Errorf("%w: %w", errCgroup, err))
	}
	if wbErr != nil {
		return fail(fmt.Errorf("sandbox: copy the work dir back: %w", wbErr))
	}

	res := Result{Limits: lim, ExitCode: -1, CPU: st.CPU, Wall: nr.Wall, Memory: st.MemoryPeak}
	if st.NoPeak {
		// cgroup v2 before Linux 5.19 keeps no peak: the largest process's is a floor.
		res.Memory = max(res.Memory, nr.MaxRSSKB<<10)
	}
	if res.Wall == 0 {
		res.Wall = hostWall
	}
	if outCap != nil {
		res.Stdout, res.StdoutBytes = outCap.buf, outCap.n.Load()
	} else {
		res.StdoutBytes = outSize
	}
	if errCap != nil {
		res.Stderr, res.StderrBytes = errCap.buf, errCap.n.Load()
	} else {
		res.StderrBytes = errSize
	}
	if nr.SetupError != "" {
		res.Status, res.Error = SE, "sandbox: "+nr.SetupError
		return res, errors.New(res.Error)
	}
	if statErr != nil {
		res.Status, res.Error = SE, "sandbox: "+statErr.Error()
		return res, errors.New(res.Error)
	}
	ws := syscall.WaitStatus(nr.Status)
	if ws.Signaled() {
		res.Signal = int(ws.Signal())
	} else {
		res.ExitCode = ws.ExitStatus()
	}
	// A file the program writes is cut at exactly Limits.Output (RLIMIT_FSIZE), so a
	// file that reached it means the program tried to write more: runtimes that ignore
	// SIGXFSZ (Python, the JVM) get EFBIG and then fail or exit, which is still OLE.
	// Captured pipes are counted exactly and are over only past the limit.
	full := outFile != nil && res.StdoutBytes >= lim.Output || errFile != nil && res.StderrBytes >= lim.Output
	killMu.Lock()
	res.Status, res.Error = classify(res, st, killedFor, killMsg, full)
	killMu.Unlock()
	if res.Status == SE {
		return res, errors.New(res.Error)
	}
	return res, nil
}

// pipeAtomic is the most standard input written to a pipe before the program starts:
// a pipe always holds at least one page, however the system limits pipe buffers.
const pipeAtomic = 4096

// classify applies the precedence SE, MLE, TLE, OLE, RE to a finished run. outputFull
// says an output file reached Limits.Output.
func classify(r Result, st cgroup.Stats, killedFor Status, killMsg string, outputFull bool) (Status, string) {
	sig := syscall.Signal(r.Signal)
	l := r.Limits
	switch {
	case killedFor == SE:
		return SE, "sandbox: " + killMsg
	case st.OOMKills > 0 || (sig == syscall.SIGKILL && killedFor == "" && st.LimitHits > 0):
		return MLE, fmt.Sprintf("memory limit %d bytes reached", l.Memory)
	case killedFor == TLE:
		return TLE, killMsg
	case r.CPU > l.CPU || sig == syscall.SIGXCPU:
		return TLE, fmt.Sprintf("CPU time %v over %v", r.CPU.Round(time.Millisecond), l.CPU)
	case r.Wall > l.Wall:
		return TLE, fmt.Sprintf("wall time %v over %v", r.Wall.Round(time.Millisecond), l.Wall)
	case killedFor == OLE:
		return OLE, killMsg
	case sig == syscall.SIGXFSZ || outputFull || r.StdoutBytes > l.Output || r.StderrBytes > l.Output:
		return OLE, fmt.Sprintf("output reached the limit of %d bytes", l.Output)
	case sig == syscall.SIGSYS:
		// The filter kills only for a non-native ABI; every denied call of the native
		// one fails with EPERM instead. The parent's wait status carries no syscall
		// number (si_syscall exists only in the SIGSYS the dying process receives).
		return RE, "killed by seccomp (SIGSYS): a system call through a non-native ABI (i386 int 0x80 or x32), which the sandbox refuses"
	case r.Signal != 0:
		return RE, "killed by signal " + strings.ToUpper(sigName(sig))
	case r.ExitCode != 0:
		return RE, fmt.Sprintf("exit code %d", r.ExitCode)
	}
	return OK, ""
}

func sigName(s syscall.Signal) string {
	return fmt.Sprintf("%d (%s)", int(s), s.String())
}

func fileSize(f *os.File) int64 {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	return st.Size()
}

// extras returns the requested read-only paths that are not already visible, sorted.
func (p *Pool) extras(paths []string) []string {
	var out []string
	for _, e := range paths {
		covered := false
		for _, b := range p.binds {
			if e == b || strings.HasPrefix(e, b+"/") {
				covered = true
				break
			}
		}
		if !covered && !slices.Contains(out, e) {
			if _, err := os.Lstat(e); err == nil {
				out = append(out, filepath.Clean(e))
			}
		}
	}
	slices.Sort(out)
	return out
}
