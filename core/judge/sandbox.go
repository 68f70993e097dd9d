package judge

import (
	"context"
	"sync"

	"oj/sandbox"
)

// SandboxRunner runs the judge's programs in a sandbox pool.
type SandboxRunner struct {
	Pool *sandbox.Pool
}

// WorkDir is where Spec.Dir appears inside the sandbox.
func (r SandboxRunner) WorkDir() string { return sandbox.WorkDir }

// Hides implements Runner.
func (r SandboxRunner) Hides(path string) string { return sandbox.ReservedDir(path) }

// Run implements Runner. The sandbox hands Stdin/Stdout/Stderr to the program over its
// control socket and keeps no copy: OnStart is called as soon as the slot has them
// (or when Run returns, if the request never reached a slot).
func (r SandboxRunner) Run(ctx context.Context, s Spec) (Result, error) {
	var started sync.Once
	onStart := func() {
		if s.OnStart != nil {
			started.Do(s.OnStart)
		}
	}
	spec := sandbox.Spec{
		OnStart:    onStart,
		Args:       s.Argv,
		Env:        s.Env,
		Dir:        s.Dir,
		ReadOnly:   s.ReadOnlyPaths,
		StdinFile:  s.Stdin,
		StdoutFile: s.Stdout,
		StderrFile: s.Stderr,
		StdoutCap:  1,
		StderrCap:  1,
		// The judge's outputSinks read as fast as they can: waiting on them is not the
		// program's time.
		StdoutDrained: s.StdoutDrained,
		StderrDrained: s.StderrDrained,
		// Every run but a compile leaves Dir as it found it: case N never sees what
		// case N-1 wrote, and nothing of it stays charged to a sandbox slot.
		DiscardWrites: !s.KeepWrites,
		Limits: sandbox.Limits{
			CPU:      s.CPU,
			Wall:     s.Wall,
			Memory:   s.MemoryBytes,
			Stack:    s.StackBytes,
			Output:   s.OutputBytes,
			FileSize: s.FileBytes,
			Pids:     s.Processes,
		},
	}
	res, err := r.Pool.Run(ctx, spec)
	onStart()
	out := Result{
		Status:   Status(res.Status),
		CPU:      res.CPU,
		Wall:     res.Wall,
		Stalled:  res.Stalled,
		MemoryKB: res.Memory >> 10,
		ExitCode: res.ExitCode,
		Signal:   res.Signal,
		Error:    res.Error,
		HostBusy: res.HostBusy,
	}
	if res.Status == sandbox.SE {
		// The sandbox's own failure, or a host too busy to run it: the judge cannot
		// decide this run.
		if res.HostBusy {
			err = HostBusy(err)
		}
		return out, err
	}
	return out, nil
}
