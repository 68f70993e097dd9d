package judge

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Status is how one sandboxed run ended, as the sandbox reports it.
type Status string

// The run statuses of DESIGN.md's sandbox.
const (
	StatusOK  Status = "OK"
	StatusTLE Status = "TLE"
	StatusMLE Status = "MLE"
	StatusOLE Status = "OLE"
	StatusRE  Status = "RE"
	StatusSE  Status = "SE"
)

// Spec is one program to run in the sandbox: the judge's view of the sandbox's run
// specification (see sandbox.go for the adapter).
type Spec struct {
	Argv []string
	Env  []string
	// Dir is a host directory whose files the program sees in its work dir (its current
	// dir), where it may also write. What it writes stays its own: the next run sees Dir
	// as the caller left it, and nothing written stays charged to anyone's memory —
	// unless KeepWrites is set (a compile), which copies the writes back into Dir.
	Dir string
	// KeepWrites copies what the program wrote in its work dir back into Dir.
	KeepWrites bool
	// ReadOnlyPaths are host paths the program may read beyond the sandbox's default view.
	ReadOnlyPaths []string
	// Stdin, Stdout, Stderr are handed to the program; nil means empty input or
	// discarded output. They may be pipes (interactive problems).
	Stdin, Stdout, Stderr *os.File
	// StdoutDrained and StderrDrained say the judge reads Stdout and Stderr (its
	// outputSinks) as fast as it can: a program waiting on a full one waits on the
	// judge, not counted against its wall limit (sandbox.Spec.StdoutDrained). Not set
	// for a pipe to another program (an interactor).
	StdoutDrained, StderrDrained bool
	CPU, Wall                    time.Duration
	MemoryBytes                  int64
	OutputBytes                  int64
	StackBytes                   int64
	Processes                    int
	// FileBytes is the largest file the program may write (0: OutputBytes).
	FileBytes int64
	// OnStart, if set, is called once the program holds its copies of Stdin, Stdout and
	// Stderr, so the caller can close its own pipe ends (the other side then sees EOF
	// when this program exits). A runner that cannot tell calls it when Run returns.
	OnStart func()
}

// Result is how a run ended.
type Result struct {
	Status Status
	CPU    time.Duration
	Wall   time.Duration
	// Stalled is the part of Wall the host held the run up (waiting for a CPU, or for
	// the judge to read its output); the runner does not count it against the wall
	// limit, and the runner alone decides a wall-time TLE (only it can tell an idle
	// program from a held-up one).
	Stalled  time.Duration
	MemoryKB int64
	ExitCode int
	Signal   int
	// Error explains an SE.
	Error string
	// HostBusy says that an SE is the host holding the run up past sandbox.max_stall,
	// not a failure of the sandbox (see HostBusyError).
	HostBusy bool
}

// sandboxFailure is the error of a run whose status is SE, marked HostBusy when the
// host's load was its cause.
func sandboxFailure(prefix string, res Result) error {
	err := fmt.Errorf("%ssandbox failure: %s", prefix, res.Error)
	if res.HostBusy {
		return HostBusy(err)
	}
	return err
}

// Runner runs programs in the sandbox. An error means the sandbox could not run the
// program at all (the judge then cannot decide and returns an error too).
// SandboxRunner is the real one; the tests also judge through a scripted fake, so
// that verdicts and scoring are checked without root or toolchains.
type Runner interface {
	Run(ctx context.Context, s Spec) (Result, error)
	// WorkDir is the path at which Spec.Dir appears to the program (its current
	// directory): the value of the {work_dir} placeholder of a language's commands.
	WorkDir() string
	// Hides names the directory of the program's own view that host path lies in (the
	// sandbox mounts fresh ones of /tmp, /dev, /proc and the work dir), or "" when a
	// read-only path there reaches the program; the judge refuses such work dirs at start.
	Hides(path string) string
}
