package sandbox

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"oj/sandbox/cgroup"
	"oj/sandbox/ns"
)

// finish is called after a run that the slot carried out: it copies the work dir's
// writes back (unless discarded), frees them, reads the cgroup's figures and settles
// the cgroup. err is a failure of the slot or of the copy; statErr, a failure to read
// the figures, makes the run's result SE but leaves the slot usable.
func (r *runState) finish(nr ns.Result) (st cgroup.Stats, statErr, err error) {
	var wbErr error
	if r.upper != nil {
		if nr.SetupError == "" && !r.spec.DiscardWrites {
			// What the run could have stored there: the tmpfs is charged to its cgroup.
			wbErr = writeBack(r.upper, r.spec.Dir, min(r.p.cfg.WorkDirBytes, r.lim.Memory))
		}
		r.upper.Close()
		r.upper = nil
	}
	st, statErr = r.g.Stats()
	r.settled = true
	if err := r.g.Settle(); errors.Is(err, cgroup.ErrNotDrained) {
		// The run itself is measured and over; only the slot cannot be trusted with
		// its memory charge for the next one.
		r.s.stale = true
	} else if err != nil {
		return st, statErr, fmt.Errorf("%w: %w", errCgroup, err)
	}
	if wbErr != nil {
		return st, statErr, fmt.Errorf("sandbox: copy the work dir back: %w", wbErr)
	}
	return st, statErr, nil
}

// result collects a finished run's figures and classifies it.
func (r *runState) result(nr ns.Result, st cgroup.Stats, statErr error) (Result, error) {
	lim := r.lim
	res := Result{Limits: lim, ExitCode: -1, CPU: st.CPU, Wall: nr.Wall, Memory: st.MemoryPeak}
	if st.NoPeak {
		// cgroup v2 before Linux 5.19 keeps no peak: the largest process's is a floor.
		res.Memory = max(res.Memory, nr.MaxRSSKB<<10)
	}
	if res.Wall == 0 {
		res.Wall = r.hostWall
	}
	res.Stalled = min(r.stall.reported(r.stall.start.Add(r.hostWall)), res.Wall)
	if r.outCap != nil {
		res.Stdout, res.StdoutBytes = r.outCap.buf, r.outCap.n.Load()
	} else {
		res.StdoutBytes = r.outSize
	}
	if r.errCap != nil {
		res.Stderr, res.StderrBytes = r.errCap.buf, r.errCap.n.Load()
	} else {
		res.StderrBytes = r.errSize
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
	fileMax := min(lim.Output, lim.FileSize)
	full := r.outFile != nil && res.StdoutBytes >= fileMax || r.errFile != nil && res.StderrBytes >= fileMax
	killedFor, killMsg := r.kill.reason()
	res.Status, res.Error = classify(res, st, killedFor, killMsg, full)
	res.HostBusy = killedFor == stalledSE
	if res.Status == SE {
		return res, errors.New(res.Error)
	}
	return res, nil
}

// classify applies the precedence SE, MLE, TLE, OLE, RE to a finished run. outputFull
// says an output file reached Limits.Output. Wall time is not looked at here: the run's
// watcher alone can tell an idle program from one the host held up (see stallMeter),
// and killed it for TLE if it was idle past its wall limit.
func classify(r Result, st cgroup.Stats, killedFor Status, killMsg string, outputFull bool) (Status, string) {
	sig := syscall.Signal(r.Signal)
	l := r.Limits
	switch {
	case killedFor == SE || killedFor == stalledSE:
		return SE, "sandbox: " + killMsg
	case st.OOMKills > 0 || (sig == syscall.SIGKILL && killedFor == "" && st.LimitHits > 0):
		return MLE, fmt.Sprintf("memory limit %d bytes reached", l.Memory)
	case killedFor == TLE:
		return TLE, killMsg
	case r.CPU > l.CPU || sig == syscall.SIGXCPU:
		return TLE, fmt.Sprintf("CPU time %v over %v", r.CPU.Round(time.Millisecond), l.CPU)
	case killedFor == OLE:
		return OLE, killMsg
	case sig == syscall.SIGXFSZ && l.FileSize < l.Output:
		return OLE, fmt.Sprintf("a file reached the file size limit of %d bytes (SIGXFSZ)", l.FileSize)
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
