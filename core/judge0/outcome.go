package judge0

import (
	"fmt"
	"strings"

	"oj/core/job"
	"oj/core/store"
)

// outcome is a stored run in Judge0's terms.
type outcome struct {
	status                        Status
	stdout, stderr, compileOutput *string
	message                       *string
	time, wallTime                *string
	memory                        *int
	exitCode, exitSignal          *int
}

// outcomeOf maps oj's run onto Judge0's statuses. oj runs the program itself, not
// through a shell script as Judge0 does, so a signal is seen as a signal and classified
// as Judge0's sources classify one (SIGSEGV 7, SIGXFSZ 8, SIGFPE 9, SIGABRT 10, other
// 12); a non-zero exit is NZEC (11). Judge0 has no memory or output limit status: oj's
// MLE is a runtime error "Other" (12; the kernel's SIGKILL, as isolate would see it)
// and oj's OLE is SIGXFSZ (8, the file-size signal Judge0's own output limit raises),
// each with a message saying which limit it was.
func outcomeOf(s *store.Submission, e Echo) outcome {
	var o outcome
	switch {
	case s.State == job.StateQueued:
		o.status = StatusInQueue
		return o
	case s.State == job.StateRunning:
		o.status = StatusProcessing
		return o
	case s.State == job.StateCanceled:
		o.status = StatusInternal
		o.message = str("the submission was canceled by an operator")
		return o
	case s.Verdict == job.VerdictCE:
		o.status = StatusCE
		o.compileOutput = str(s.CompileOutput)
		return o
	case s.State == job.StateDead || s.Verdict == job.VerdictSE || len(s.RunResults) == 0:
		o.status = StatusInternal
		msg := s.LastError
		if msg == "" {
			msg = "internal error"
		}
		msg, _, _ = strings.Cut(msg, "\n")
		o.message = &msg
		return o
	}
	if s.CompileOutput != "" {
		o.compileOutput = str(s.CompileOutput)
	}
	// number_of_runs: the worker reports the last run, with the mean time and memory of
	// all of them, as Judge0 does.
	r := s.RunResults[0]
	o.time, o.wallTime = seconds(float64(r.TimeMS)), seconds(float64(r.WallMS))
	o.memory = intp(r.MemoryKB)
	o.stdout = optional(r.Stdout)
	o.stderr = optional(r.Stderr)
	switch r.Status {
	case job.RunOK:
		o.exitCode = intp(0)
		if Matches(e.ExpectedOutput, r.Stdout) {
			o.status = StatusAccepted
		} else {
			o.status = StatusWrong
		}
	case job.RunTLE:
		o.status = StatusTLE
		o.message = str("Time limit exceeded")
		if s.Run != nil && r.TimeMS < s.Run.TimeMS {
			o.message = str("Time limit exceeded (wall clock)")
		}
		o.exitSignal = intp(9)
	case job.RunMLE:
		o.status = StatusOther
		o.message = str("Memory limit exceeded")
		o.exitSignal = intp(9)
	case job.RunOLE:
		o.status = StatusSIGXFSZ
		o.message = str("Output limit exceeded")
		o.exitSignal = intp(25)
	case job.RunRE:
		if r.Signal != 0 {
			o.status = signalStatus(r.Signal)
			o.message = str(fmt.Sprintf("Caught fatal signal %d", r.Signal))
			o.exitSignal = intp(r.Signal)
		} else {
			o.status = StatusNZEC
			o.message = str(fmt.Sprintf("Exited with error status %d", r.ExitCode))
			o.exitCode = intp(r.ExitCode)
		}
	default:
		o.status = StatusInternal
		o.message = str(firstLine(r.Message, "internal error"))
	}
	return o
}

func str(s string) *string { return &s }
func intp(n int) *int      { return &n }

// optional is Judge0's null for an empty stream.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func firstLine(s, fallback string) string {
	s, _, _ = strings.Cut(s, "\n")
	if s == "" {
		return fallback
	}
	return s
}
