package judge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"oj/core/job"
	"oj/core/judge/lang"
)

// run runs a run (the Run button): compiles the source once, the same way a
// submission's is compiled, then runs the program on each of the run's inputs with the
// run's own limits, and reports how each ended with the start of what it wrote. There is
// no package, no checker and no verdict — except CE when the source does not compile.
// An error means the run could not be decided (as for Judge): the worker retries it.
func (j *Judge) run(ctx context.Context, t job.Task, l *lang.Language) (job.Outcome, error) {
	spec := t.Run
	if spec == nil {
		return job.Outcome{}, errors.New("run without a run spec")
	}
	if spec.TimeMS <= 0 || spec.MemoryMB <= 0 || spec.OutputBytes <= 0 {
		return job.Outcome{}, fmt.Errorf("run spec has no limits (time %d ms, memory %d MiB, output %d bytes)",
			spec.TimeMS, spec.MemoryMB, spec.OutputBytes)
	}
	dir, err := os.MkdirTemp(j.tasksDir(), "run-")
	if err != nil {
		return job.Outcome{}, err
	}
	defer os.RemoveAll(dir)
	tk := &task{j: j, t: t, lang: l, dir: dir, box: filepath.Join(dir, "box"), opts: spec}
	if err := mkdirs(tk.box); err != nil {
		return job.Outcome{}, err
	}
	tk.src, tk.class = l.Entry(t.Source)
	if err := os.WriteFile(filepath.Join(tk.box, tk.src), []byte(t.Source), 0o644); err != nil {
		return job.Outcome{}, err
	}
	if refused, err := unpackRunFiles(spec, tk.box); err != nil || refused != "" {
		if err != nil {
			return job.Outcome{}, fmt.Errorf("additional files: %w", err)
		}
		return job.Outcome{Verdict: job.VerdictCE, CompileOutput: refused}, nil
	}
	// The limits are the caller's as applied (clamped by the API): a run measures the
	// program itself, so no language factor stretches them.
	tk.cpu = time.Duration(spec.TimeMS) * time.Millisecond
	tk.wall = j.runWall(spec, tk.cpu)
	tk.memMB = spec.MemoryMB
	tk.mem = int64(spec.MemoryMB) << 20
	var compileLog string
	if l.Compiled() {
		c, err := j.compileWith(ctx, l, tk.box, compileOpts{lim: j.cfg.Compile, src: tk.src,
			beforeSrc: spec.CompilerArgs, raw: true})
		if err != nil {
			return job.Outcome{}, err
		}
		if !c.ok {
			return job.Outcome{Verdict: job.VerdictCE, CompileOutput: c.output}, nil
		}
		compileLog = c.output // warnings
	}
	out := job.Outcome{CompileOutput: compileLog, Runs: make([]job.RunResult, 0, len(spec.Stdins))}
	for i, stdin := range spec.Stdins {
		r, err := tk.runInputTimes(ctx, i+1, stdin, spec.OutputBytes, min(max(spec.Runs, 1), job.MaxRunRepeats))
		if err != nil {
			return job.Outcome{}, fmt.Errorf("input %d: %w", i+1, err)
		}
		out.Runs = append(out.Runs, r)
		out.TimeMS, out.MemoryKB = max(out.TimeMS, r.TimeMS), max(out.MemoryKB, r.MemoryKB)
	}
	return out, nil
}

// runInputTimes runs the program on one input n times (job.RunSpec.Runs), and returns
// the runs' average (averaged). A run that does not end OK ends the series: it is the
// result, with the average of the runs made.
func (tk *task) runInputTimes(ctx context.Context, index int, stdin string, keep, n int) (job.RunResult, error) {
	rs := make([]job.RunResult, 0, n)
	for range n {
		r, err := tk.runInput(ctx, index, stdin, keep)
		if err != nil {
			return job.RunResult{}, err
		}
		rs = append(rs, r)
		if r.Status != job.RunOK {
			break
		}
	}
	return averaged(rs), nil
}

// runInput runs the program on one input (written to the task dir, on the tasks tmpfs)
// and keeps keep bytes of each output, counting one more to tell a truncation.
func (tk *task) runInput(ctx context.Context, index int, stdin string, keep int) (job.RunResult, error) {
	in := filepath.Join(tk.dir, "stdin-"+strconv.Itoa(index))
	if err := os.WriteFile(in, []byte(stdin), 0o644); err != nil {
		return job.RunResult{}, err
	}
	defer os.Remove(in)
	res, out, errs, err := tk.runOnce(ctx, in, keep+1, keep+1)
	if err != nil {
		return job.RunResult{}, err
	}
	r := job.RunResult{Index: index, ExitCode: res.ExitCode, Signal: res.Signal, TimeMS: int(res.CPU.Milliseconds()),
		WallMS: int(res.Wall.Milliseconds()), MemoryKB: int(res.MemoryKB)}
	r.Stdout, r.StdoutTruncated = kept(out, keep)
	r.Stderr, r.StderrTruncated = kept(errs, keep)
	if res.Status == StatusSE {
		// The sandbox failed this input alone: say so and go on with the others.
		r.Status, r.Message = job.RunSE, "sandbox failure: "+res.Error
		return r, nil
	}
	r.Status, r.Message = runStatus(tk.resourceVerdict(res, errs.buf, out.over || errs.over))
	tk.fileSizeKill(&r, out.over || errs.over)
	return r, nil
}

// runStatus turns the judge's resource verdict of one run into a run's status.
func runStatus(v job.Verdict, msg string) (job.RunStatus, string) {
	switch v {
	case "":
		return job.RunOK, ""
	case job.VerdictMLE:
		return job.RunMLE, msg
	case job.VerdictTLE:
		return job.RunTLE, msg
	case job.VerdictOLE:
		return job.RunOLE, msg
	}
	return job.RunRE, msg
}

// kept is the start of what a sink received, at most keep bytes, byte for byte (a
// program's output is anybody's bytes: job.RunResult stores them exactly), and whether
// there was more.
func kept(s *outputSink, keep int) (string, bool) {
	b, more := s.buf, s.n > int64(keep) || s.over
	if len(b) > keep {
		b = b[:keep]
	}
	return string(b), more
}
