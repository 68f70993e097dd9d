package judge

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// PermanentError is a failure that no other attempt can fix: the package itself is
// broken (it cannot be read, or its checker or interactor does not compile). The worker
// ends such a submission at once as SE with the error as its reason, instead of
// retrying it max_attempts times.
//
// What is not permanent, on purpose: a language unknown to this worker or whose
// toolchain this host lacks (another worker, configured differently, may judge it — the
// API accepted the language from its own configuration), the object store or the cache
// failing, the sandbox failing, a compile cut short by its time or wall limit while
// judging (a loaded host: the same tool compiled within its bounds at upload), a run the
// sandbox gave up because the host held it up past sandbox.max_stall, a context that
// ended. Those stay errors to retry.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent marks err as permanent (nil stays nil).
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &PermanentError{Err: err}
}

// IsPermanent reports whether err, or an error it wraps, is permanent.
func IsPermanent(err error) bool {
	var pe *PermanentError
	return errors.As(err, &pe)
}

// HostBusyError is a failure caused by the host's load rather than by a fault of this
// worker: the sandbox gave a run up because the host held it up past sandbox.max_stall
// (too busy to judge it). Like any error it is retried, bounded by max_attempts; unlike
// the others it says nothing about the worker's health, so it never counts towards the
// worker's quarantine (worker.quarantine_after).
type HostBusyError struct{ Err error }

func (e *HostBusyError) Error() string { return e.Err.Error() }
func (e *HostBusyError) Unwrap() error { return e.Err }

// HostBusy marks err as the host's load (nil stays nil).
func HostBusy(err error) error {
	if err == nil {
		return nil
	}
	return &HostBusyError{Err: err}
}

// IsHostBusy reports whether err, or an error it wraps, is the host's load.
func IsHostBusy(err error) bool {
	var hb *HostBusyError
	return errors.As(err, &hb)
}

// ToolCompileError says that a package's checker or interactor does not compile; it is
// returned wrapped in a PermanentError.
type ToolCompileError struct {
	Kind   string // "checker", "interactor" or "validator"
	Source string // the source's name in the package
	Output string // the compiler's output, bounded
}

func (e *ToolCompileError) Error() string {
	return fmt.Sprintf("%s %s does not compile:\n%s", e.Kind, e.Source, strings.TrimRight(e.Output, "\n"))
}

// AsToolCompileError returns the ToolCompileError err carries, if any.
func AsToolCompileError(err error) (*ToolCompileError, bool) {
	var tc *ToolCompileError
	ok := errors.As(err, &tc)
	return tc, ok
}

// ToolTimeoutError says that a package's checker or interactor did not compile within
// its bound when the package was uploaded: Key names the bound (judge.tool_compile.cpu,
// judge.tool_compile.wall, or api.tool_build_timeout when the upload stopped waiting
// first) and Bound its value. It is returned wrapped in a PermanentError by BuildTools
// only: while judging, the same cut is a loaded host's doing and is retried.
type ToolTimeoutError struct {
	Kind   string // "checker" or "interactor"
	Source string
	Key    string
	Bound  time.Duration
}

func (e *ToolTimeoutError) Error() string {
	left := ""
	if e.Key == KeyToolBuildTimeout {
		left = "what was left of "
	}
	return fmt.Sprintf("%s: the compile did not finish within %s%s (%s)", e.Source, left, e.Key, seconds(e.Bound))
}

// AsToolTimeoutError returns the ToolTimeoutError err carries, if any.
func AsToolTimeoutError(err error) (*ToolTimeoutError, bool) {
	var tt *ToolTimeoutError
	ok := errors.As(err, &tt)
	return tt, ok
}

// The keys a ToolTimeoutError names.
const (
	KeyToolCompileCPU   = "judge.tool_compile.cpu"
	KeyToolCompileWall  = "judge.tool_compile.wall"
	KeyToolBuildTimeout = "api.tool_build_timeout"
)

// seconds writes a bound as people write it: 60s, 1.5s, 250ms.
func seconds(d time.Duration) string {
	switch {
	case d >= time.Second && d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	case d >= time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	default:
		return d.Round(time.Millisecond).String()
	}
}
