// Package sandbox runs one untrusted program with limits and measures it; everything
// the judge executes (compilers included) goes through it.
//
// A Pool keeps Config.PoolSize pre-created sandbox environments ("slots"). Each slot is
// a long-lived init process — our own binary re-executed (see MaybeRunChild) — inside
// new PID, mount, network, IPC and UTS namespaces, with a read-only view of the host's
// runtime directories (Config.ReadOnly plus a filtered /etc), a minimal /dev and its
// own /proc, after pivot_root. A run asks a free slot's init to mount the work dir at
// /w (a fresh tmpfs, or an overlay whose writes go to a fresh tmpfs over Spec.Dir),
// with size-limited tmpfs at /tmp and /dev/shm that the slot empties after each run,
// then to clone a child, in an IPC namespace no earlier run used, that joins the slot's
// cgroup (memory without swap, pids, CPU accounting over all threads), sets rlimits
// (stack, file size, open files, core 0, CPU as a backstop), drops to the slot's
// unprivileged uid/gid, sets no_new_privs, loads the seccomp filter and execs. When the
// main process exits, every other process of the run is killed and reaped, the mounts
// are detached and the cgroup is read and checked empty: nothing of a run outlives it,
// and nothing it wrote stays charged to the slot (the slot's memory charge must drain
// back to its baseline after each run, or the slot gets a new cgroup).
// A slot keeps its cgroup for its whole life and resets its counters before each run
// (see cgroup.Group.Reset), which costs a few writes instead of a mkdir and an rmdir;
// on cgroup v2 kernels before 6.12, whose memory.peak cannot be reset, the slot's
// cgroup is a parent and each run gets a fresh leaf below it instead.
//
// The Linux-only parts live in sandbox/ns (namespaces and the init), sandbox/cgroup
// (v1 and v2) and sandbox/seccomp. On other systems NewPool returns ErrUnsupported.
package sandbox

import (
	"errors"
	"io"
	"os"
	"strings"
	"time"
)

// WorkDir is where Spec.Dir (or a fresh tmpfs) appears inside the sandbox; it is also
// the program's working directory.
const WorkDir = "/w"

// ReservedDir returns the directory of the sandbox's own view that path lies in (/w, /tmp,
// /proc or /dev: each run gets fresh ones), or "" when path can be shown to programs.
// A host path under one of them cannot be bound read-only into a run — the run's own
// mount would hide it — so configuration that puts shared files there (a judge work dir
// under /tmp) is refused at start by whoever hands such paths to Run.
func ReservedDir(path string) string {
	for _, reserved := range []string{WorkDir, "/tmp", "/proc", "/dev"} {
		if path == reserved || strings.HasPrefix(path, reserved+"/") {
			return reserved
		}
	}
	return ""
}

// ErrUnsupported is returned by NewPool where the sandbox cannot run (not Linux).
var ErrUnsupported = errors.New("sandbox: unsupported on this operating system (needs Linux)")

// ErrClosed is returned by Run after Close.
var ErrClosed = errors.New("sandbox: pool closed")

// Status is the outcome of a run. Precedence when several apply: SE, MLE, TLE, OLE, RE.
type Status string

// The statuses of a run.
const (
	OK  Status = "OK"  // exited with code 0 within every limit
	TLE Status = "TLE" // CPU time over Limits.CPU, or idle with wall time less Result.Stalled over Limits.Wall
	MLE Status = "MLE" // the memory limit was hit (OOM kill) or exceeded
	OLE Status = "OLE" // more than Limits.Output bytes on stdout/stderr or in one file
	RE  Status = "RE"  // killed by a signal or exited with a non-zero code
	SE  Status = "SE"  // the sandbox failed (Result.Error says at which step), or the host stalled the run past Config.MaxStall
)

// Limits bound one run. A zero field takes the pool's default from Config.
type Limits struct {
	// CPU is the CPU time over all threads and processes of the run (cgroup-measured,
	// polled every Config.PollInterval; the run is killed just over it).
	CPU time.Duration
	// Wall is the real-time limit; zero means 3 × CPU + 1 s. It catches sleepers and
	// programs blocked on a read: a run is ended for it only while idle (no thread
	// runnable). The time the host held the run up (Result.Stalled: waiting for a CPU,
	// or for its output to be read) does not count against it.
	Wall time.Duration
	// Memory is the memory limit in bytes (cgroup, page cache included, no swap).
	Memory int64
	// Stack is RLIMIT_STACK in bytes; zero means equal to Memory.
	Stack int64
	// Output caps, in bytes, captured or redirected stdout and stderr each, and the size
	// of any single file the program writes (RLIMIT_FSIZE) unless FileSize is set.
	Output int64
	// FileSize is RLIMIT_FSIZE in bytes, the largest file the program may write (a write
	// past it fails with EFBIG after SIGXFSZ, which kills by default); zero means Output.
	FileSize int64
	// Pids caps the run's processes plus threads (cgroup pids.max).
	Pids int
	// OpenFiles is RLIMIT_NOFILE.
	OpenFiles int
}

// Spec describes one run. Only Args is required.
type Spec struct {
	// Args is argv. Args[0] without a slash is looked up on the PATH of Env inside the
	// sandbox, as execvp does.
	Args []string
	// Env is the whole environment ("KEY=value"); nil means Config.Env.
	Env []string
	// Dir is a host directory whose files the program sees at /w (WorkDir), its working
	// directory. The directory itself is never written by the run: /w is an overlay
	// whose writes go to a fresh tmpfs of Config.WorkDirBytes, charged to the run and
	// freed after it, so no run sees another's files and none stays charged to the
	// slot. After a run the host copies what it wrote back into Dir (files, hard links
	// as links, directories, symlinks, owned by the caller; and removals), unless
	// DiscardWrites is set. The write-back is all or nothing — Dir is either as it was
	// or holds all of it — and bounded: at most 10,000 names, directories at most 64
	// deep, and no more bytes than the run could have stored in its work dir (the
	// smaller of Config.WorkDirBytes and Limits.Memory, counting each inode once);
	// over a bound, nothing is copied and Run fails with ErrWriteBackLimit. Empty means
	// a fresh empty tmpfs. Read files a program left in Dir with ReadWorkFile, never by
	// following paths blindly: the program may have left symlinks to host files.
	Dir string
	// DiscardWrites drops what the run wrote in /w instead of copying it back into Dir:
	// every run then starts from Dir as the caller left it (the cases of a submission).
	DiscardWrites bool
	// OnStart, if set, is called once the slot holds its own copies of the program's
	// standard streams (before the program starts): the caller may then close its
	// copies of pipe ends only the program uses, and their other side sees end of file
	// as soon as the run is over. It is not called when the request never reached the
	// slot.
	OnStart func()
	// ReadOnly lists extra absolute host paths (a language's runtime: a JDK, a Rust
	// toolchain) bound read-only at the same path. Paths under Config.ReadOnly are
	// already visible and skipped.
	ReadOnly []string

	// Standard input: at most one of StdinFile (e.g. a pipe end, for interactive
	// problems), StdinPath (a host file) and Stdin (copied through a pipe). None means
	// /dev/null.
	Stdin     io.Reader
	StdinFile *os.File
	StdinPath string

	// Standard output: StdoutFile (e.g. a pipe end) or StdoutPath (a host file, created
	// or truncated) receive it directly; otherwise it is captured into Result.Stdout,
	// keeping the first StdoutCap bytes (zero: Config.CaptureBytes) and counting the rest.
	StdoutFile *os.File
	StdoutPath string
	StdoutCap  int

	// Standard error, like standard output.
	StderrFile *os.File
	StderrPath string
	StderrCap  int

	// StdoutDrained and StderrDrained say that StdoutFile and StderrFile, where they
	// are pipes, are read by the caller as fast as it can (as the sandbox reads a
	// captured stream): while one is full the program waits on the caller, and that
	// time is its stall, not counted against Limits.Wall. Leave them unset for a pipe
	// to another program (an interactor), whose not reading is that program's doing.
	StdoutDrained, StderrDrained bool

	// Limits for this run; zero fields take Config's defaults.
	Limits Limits
}

// Result is what a run did. CPU, Wall and Memory are measured on every run.
type Result struct {
	Status Status
	// ExitCode is the main process's exit code, or -1 when a signal killed it.
	ExitCode int
	// Signal is the signal that killed the main process, or 0.
	Signal int
	// CPU is the CPU time of all threads of all processes of the run (cgroup).
	CPU time.Duration
	// Wall is the real time from start to the main process's exit.
	Wall time.Duration
	// Stalled is the part of Wall during which the host held the run up: a thread of it
	// waited for a CPU, it was blocked on an output pipe its reader had not emptied (a
	// captured stream, or Spec.StdoutDrained), or it waited to join its cgroup. It is
	// not counted against Limits.Wall; it is measured, not exact, and errs on the short
	// side.
	Stalled time.Duration
	// Memory is the peak memory of the run in bytes (cgroup).
	Memory int64
	// StdoutBytes and StderrBytes count everything written (captured, or the size of
	// the output file), including what was cut from Stdout/Stderr.
	StdoutBytes, StderrBytes int64
	// Stdout and Stderr hold the start of captured streams, up to their caps.
	Stdout, Stderr []byte
	// Error explains SE (the failed step), and gives details for other statuses: the
	// signal, the seccomp kill, which limit was exceeded.
	Error string
	// Limits are the limits the run actually had (Spec.Limits with defaults applied).
	Limits Limits
	// HostBusy says that an SE is the host holding the run up past Config.MaxStall (too
	// busy to judge it), not a failure of the sandbox: another try, on a quieter host,
	// may judge it.
	HostBusy bool
}
