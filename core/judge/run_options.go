package judge

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	"oj/core/job"
	"oj/core/judge/problem"
)

// A run's options (job.RunSpec beyond its inputs and limits), the per-submission knobs a
// Judge0 client sets. Each one maps onto the real sandbox: the program's arguments onto
// its argv, never through a shell; extra CPU time onto the CPU kill while the verdict
// keeps TimeMS; the stack, file size and process bounds onto RLIMIT_STACK, RLIMIT_FSIZE
// and the cgroup's pids.max; stderr into stdout onto one pipe at fds 1 and 2; files onto
// the work dir before the compile.

// maxFilesZip bounds a run's zip of files (it came in the run's JSON).
const maxFilesZip = 64 << 20

// applyRunOptions sets a run's options on the spec of one of its runs.
func (tk *task) applyRunOptions(s *Spec) {
	o := tk.opts
	s.Argv = append(s.Argv, o.Args...)
	s.CPU = tk.cpu + time.Duration(o.ExtraTimeMS)*time.Millisecond
	if o.StackKB > 0 {
		s.StackBytes = int64(o.StackKB) << 10
	}
	if o.Processes > 0 {
		s.Processes = o.Processes
	}
	if o.MaxFileKB > 0 {
		s.FileBytes = int64(o.MaxFileKB) << 10
	}
}

// runWall is a run's wall limit: its own, or the judge's rule on its CPU time with the
// extra time included.
func (j *Judge) runWall(spec *job.RunSpec, cpu time.Duration) time.Duration {
	if spec.WallMS > 0 {
		return time.Duration(spec.WallMS) * time.Millisecond
	}
	cpu += time.Duration(spec.ExtraTimeMS) * time.Millisecond
	return time.Duration(float64(cpu)*j.cfg.WallFactor) + j.cfg.WallExtra
}

// unpackRunFiles writes a run's files into box beside the source. A zip the rules
// refuse is the caller's doing: its reason comes back as compile output (the run ends
// CE), not as an error to retry.
func unpackRunFiles(spec *job.RunSpec, box string) (refused string, err error) {
	if len(spec.Files) == 0 {
		return "", nil
	}
	err = problem.UnpackFiles(spec.Files, box, problem.FilesLimits(maxFilesZip))
	var invalid *problem.InvalidError
	if errors.As(err, &invalid) {
		return "additional files: " + invalid.Error() + "\n", nil
	}
	return "", err
}

// fileSizeKill turns the output-limit verdict of a program killed for writing a file
// past the run's max_file_kb into what it is: a runtime error by SIGXFSZ, as a Judge0
// client expects, apart from an output over the output limit.
func (tk *task) fileSizeKill(r *job.RunResult, outputFull bool) {
	if tk.opts == nil || tk.opts.MaxFileKB <= 0 || outputFull || r.Status != job.RunOLE || r.Signal != int(syscall.SIGXFSZ) {
		return
	}
	r.Status = job.RunRE
	r.Message = fmt.Sprintf("killed by signal %d (SIGXFSZ): a file reached the file size limit (max_file_kb %d)",
		r.Signal, tk.opts.MaxFileKB)
}

// averaged is the result of an input run n times (job.RunSpec.Runs): the last run's,
// with the time, wall time and memory of all of them averaged.
func averaged(rs []job.RunResult) job.RunResult {
	last := rs[len(rs)-1]
	var cpu, wall, mem int
	for _, r := range rs {
		cpu, wall, mem = cpu+r.TimeMS, wall+r.WallMS, mem+r.MemoryKB
	}
	n := len(rs)
	last.TimeMS, last.WallMS, last.MemoryKB = (cpu+n/2)/n, (wall+n/2)/n, (mem+n/2)/n
	return last
}
