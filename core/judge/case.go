package judge

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"oj/core/job"
	"oj/core/judge/check"
	"oj/core/judge/lang"
	"oj/core/judge/objstore"
)

// caseOutcome is one case's result before scoring: res.Score is filled by score().
type caseOutcome struct {
	res    job.CaseResult
	points float64  // fraction of the case's score earned
	score  *float64 // the case's own score, when a Kattis validator gave one (score.txt)
	art    objstore.RunCase
}

// markerScan bounds how much of stderr is searched for a language's OOM marker.
const markerScan = 64 << 10

func (tk *task) caseFiles(i int) (in, ans string) {
	return filepath.Join(tk.ent.Dir, "tests", strconv.Itoa(i)+".in"),
		filepath.Join(tk.ent.Dir, "tests", strconv.Itoa(i)+".out")
}

func (tk *task) runSpec() Spec {
	vars := lang.Vars{Src: tk.src, Class: tk.class, MemoryMB: tk.memMB, WorkDir: tk.j.runner.WorkDir()}
	s := Spec{
		Argv:          lang.Expand(tk.lang.Run, vars),
		Env:           mergeEnv(baseEnv, lang.Expand(tk.lang.RunEnv, vars)),
		Dir:           tk.box,
		ReadOnlyPaths: tk.lang.ReadOnlyPaths,
		CPU:           tk.cpu,
		Wall:          tk.wall,
		MemoryBytes:   tk.mem,
		OutputBytes:   tk.outputLimit(),
		StackBytes:    tk.mem,
		Processes:     tk.lang.Processes,
	}
	if tk.opts != nil {
		tk.applyRunOptions(&s)
	}
	return s
}

// outputLimit is what one run may write: the problem's bound, within the judge's (a
// run, which has no problem, is bounded by the judge's alone).
func (tk *task) outputLimit() int64 {
	mb := tk.j.cfg.OutputLimitMB
	if tk.ent == nil {
		return int64(mb) << 20
	}
	if p := tk.ent.Pkg.Spec.OutputLimitMB; p > 0 && p < mb {
		mb = p
	}
	return int64(mb) << 20
}

// runCase runs the solution on case i and checks its output.
func (tk *task) runCase(ctx context.Context, i int) (caseOutcome, error) {
	inPath, ansPath := tk.caseFiles(i)
	res, out, errs, err := tk.runWithInput(ctx, inPath)
	if err != nil {
		return caseOutcome{}, err
	}
	co := caseOutcome{res: job.CaseResult{Index: i, TimeMS: ms(res.CPU.Milliseconds()), MemoryKB: int(res.MemoryKB)}}
	co.art.Stdout = excerpt(out.buf, tk.j.cfg.ExcerptBytes)
	co.art.Stderr = excerpt(errs.buf, tk.j.cfg.ExcerptBytes)
	if v, msg := tk.resourceVerdict(res, errs.buf, out.over || errs.over); v != "" {
		co.res.Verdict, co.res.Message = v, msg
		return co, nil
	}
	var r check.Result
	switch {
	case tk.validator != nil:
		r, err = tk.runValidator(ctx, inPath, out.buf, ansPath)
		if err != nil {
			return caseOutcome{}, err
		}
		co.art.Checker = r.CheckerMessage
	case tk.checker != nil:
		r, err = tk.runChecker(ctx, inPath, out.buf, ansPath)
		if err != nil {
			return caseOutcome{}, err
		}
		co.art.Checker = r.CheckerMessage
	default:
		ans, err := os.ReadFile(ansPath)
		if err != nil {
			return caseOutcome{}, err
		}
		c := tk.ent.Pkg.Spec.Checker
		abs, rel := c.Tolerances()
		o := check.Options{CaseInsensitive: !c.IsCaseSensitive(), SpaceSensitive: c.SpaceChangeSensitive,
			Float: c.Type == check.Float, AbsTol: abs, RelTol: rel}
		if r, err = check.CompareWith(c.Type, o, out.buf, ans); err != nil {
			return caseOutcome{}, err
		}
	}
	co.setCheck(r)
	return co, nil
}

// setCheck records a checker's decision on the case.
func (co *caseOutcome) setCheck(r check.Result) {
	co.res.Verdict, co.points, co.res.Message = r.Verdict, r.Points, clipString(r.Message, 256)
	co.res.CheckerMessage = clipString(r.CheckerMessage, 256) // admins only
	if r.HasScore {
		s := r.Score
		co.score = &s
	}
}

// runWithInput runs the solution on the file inPath. Its whole stdout (up to the output
// limit) and the start of its stderr come back in the sinks, which are drained.
func (tk *task) runWithInput(ctx context.Context, inPath string) (Result, *outputSink, *outputSink, error) {
	s := tk.runSpec()
	return tk.runOn(ctx, inPath, int(s.OutputBytes), markerScan)
}

// runOn runs the solution on the file inPath, keeping the first outKeep bytes of its
// stdout and errKeep of its stderr; either stream over the output limit is cut off
// (sink.over). A sandbox failure (status SE) is an error.
func (tk *task) runOn(ctx context.Context, inPath string, outKeep, errKeep int) (Result, *outputSink, *outputSink, error) {
	res, out, errs, err := tk.runOnce(ctx, inPath, outKeep, errKeep)
	if err == nil && res.Status == StatusSE {
		return Result{}, nil, nil, sandboxFailure("run: ", res)
	}
	return res, out, errs, err
}

// runOnce is runOn that returns a sandbox failure as the result it is.
func (tk *task) runOnce(ctx context.Context, inPath string, outKeep, errKeep int) (Result, *outputSink, *outputSink, error) {
	in, err := os.Open(inPath)
	if err != nil {
		return Result{}, nil, nil, err
	}
	defer in.Close()
	s := tk.runSpec()
	out, err := newOutputSink(outKeep, s.OutputBytes)
	if err != nil {
		return Result{}, nil, nil, err
	}
	defer out.wait()
	errs, err := newOutputSink(errKeep, s.OutputBytes)
	if err != nil {
		return Result{}, nil, nil, err
	}
	defer errs.wait()
	s.Stdin, s.Stdout, s.Stderr = in, out.w, errs.w
	if tk.opts != nil && tk.opts.RedirectStderr {
		s.Stderr = out.w // one stream, in the order written: the program's fds 1 and 2 are one pipe
	}
	s.StdoutDrained, s.StderrDrained = true, true
	// The sinks reach end of file as soon as the run is over, not after Run returns.
	s.OnStart = func() { out.w.Close(); errs.w.Close() }
	res, err := tk.j.runner.Run(ctx, s)
	out.wait()
	errs.wait()
	if err != nil {
		return Result{}, nil, nil, fmt.Errorf("run: %w", err)
	}
	return res, out, errs, nil
}

// resourceVerdict applies DESIGN.md's precedence for one run: MLE, TLE (CPU or wall),
// OLE, RE (signal or non-zero exit); "" when the program ended normally. outputFull
// (stdout or stderr went past the output limit, and the judge then stopped reading it)
// counts as OLE ahead of TLE and RE: the program then dies of SIGPIPE, or a runtime
// that ignores it (Python, the JVM) fails or spins on the refused write, and what went
// wrong first was the output. A wall-time TLE is the runner's status: only the sandbox
// can tell a program idle past its wall limit from one the host held up (Result.Stalled:
// waiting for a CPU, or for the judge to read its output), and a busy host must not
// turn the second into TLE. CPU time is checked here as well: it is exact.
func (tk *task) resourceVerdict(res Result, stderr []byte, outputFull bool) (job.Verdict, string) {
	oom := tk.lang.OOMMarker != "" && bytes.Contains(stderr, []byte(tk.lang.OOMMarker))
	switch {
	case res.Status == StatusMLE:
		return job.VerdictMLE, "memory limit exceeded"
	case outputFull:
		return job.VerdictOLE, "output limit exceeded"
	case res.Status == StatusTLE || res.CPU > tk.cpu:
		return job.VerdictTLE, "time limit exceeded"
	case res.Status == StatusOLE || res.Signal == int(syscall.SIGXFSZ):
		return job.VerdictOLE, "output limit exceeded"
	case res.Status == StatusRE || res.ExitCode != 0 || res.Signal != 0:
		if oom {
			return job.VerdictMLE, "the runtime ran out of memory"
		}
		if res.Signal != 0 {
			return job.VerdictRE, fmt.Sprintf("killed by signal %d (%s)", res.Signal, syscall.Signal(res.Signal))
		}
		return job.VerdictRE, fmt.Sprintf("exit code %d", res.ExitCode)
	}
	return "", ""
}

// runChecker runs the testlib checker: checker input output answer. The output is
// written into the checker's work dir on the tasks tmpfs, by the worker.
func (tk *task) runChecker(ctx context.Context, inPath string, output []byte, ansPath string) (check.Result, error) {
	box := filepath.Join(tk.dir, "checker")
	if err := toolBox(box, tk.checker, map[string]string{"input.txt": inPath, "answer.txt": ansPath}); err != nil {
		return check.Result{}, err
	}
	if err := os.WriteFile(filepath.Join(box, "output.txt"), output, 0o644); err != nil {
		return check.Result{}, err
	}
	res, stdout, stderr, err := tk.runTool(ctx, toolRun{box: box, tool: tk.checker,
		args: []string{"input.txt", "output.txt", "answer.txt"}, wall: tk.j.cfg.Checker.Wall})
	if err != nil {
		return check.Result{}, fmt.Errorf("checker: %w", err)
	}
	return check.Testlib(toolEndedNormally(res), res.ExitCode, stdout, stderr), nil
}

// toolBox prepares a tool's work dir: the tool under its name and files (name in the
// box → host path) as links, made afresh each time (a tool that keeps its writes may
// have changed them).
func toolBox(box string, t *tool, files map[string]string) error {
	if _, err := os.Stat(box); err != nil {
		if err := mkdirs(box); err != nil {
			return err
		}
	}
	if err := linkOrCopy(t.bin, filepath.Join(box, t.name)); err != nil {
		return err
	}
	for name, src := range files {
		if err := linkOrCopy(src, filepath.Join(box, name)); err != nil {
			return err
		}
	}
	return nil
}

// toolEndedNormally: a checker's exit code counts only when it exited by itself within
// its limits (the sandbox may call a non-zero exit RE).
func toolEndedNormally(res Result) bool {
	return (res.Status == StatusOK || res.Status == StatusRE) && res.Signal == 0
}

// toolRun is one run of a checker, validator or interactor.
type toolRun struct {
	box  string
	tool *tool
	args []string // after the tool's command
	// stdin and stdout may be pipes; nil stdin is /dev/null, nil stdout is captured.
	stdin, stdout *os.File
	wall          time.Duration
	// keepWrites copies what the run wrote back into box (a Kattis validator's
	// feedback directory); otherwise it is dropped.
	keepWrites bool
	onStart    func()
}

// runTool runs a checker, validator or interactor under the checker limits. When
// r.stdout is nil its start is captured and returned, as is stderr's. Output over the
// checker's output limit is status OLE (the tool did not end normally).
func (tk *task) runTool(ctx context.Context, r toolRun) (Result, []byte, []byte, error) {
	const keep = 4096
	lim := tk.j.cfg.Checker
	limit := int64(lim.OutputMB) << 20
	errs, err := newOutputSink(keep, limit)
	if err != nil {
		return Result{}, nil, nil, err
	}
	defer errs.wait()
	var out *outputSink
	stdout := r.stdout
	if stdout == nil {
		if out, err = newOutputSink(keep, limit); err != nil {
			return Result{}, nil, nil, err
		}
		defer out.wait()
		stdout = out.w
	}
	s := Spec{
		Argv:          append(append([]string(nil), r.tool.argv...), r.args...),
		Env:           baseEnv,
		Dir:           r.box,
		ReadOnlyPaths: r.tool.ro,
		KeepWrites:    r.keepWrites,
		Stdin:         r.stdin,
		Stdout:        stdout,
		Stderr:        errs.w,
		StdoutDrained: out != nil, // else a pipe to the solution
		StderrDrained: true,
		CPU:           lim.CPU,
		Wall:          r.wall,
		MemoryBytes:   int64(lim.MemoryMB) << 20,
		OutputBytes:   limit,
		StackBytes:    int64(lim.MemoryMB) << 20,
		Processes:     lim.Processes,
		OnStart:       r.onStart,
	}
	res, err := tk.j.runner.Run(ctx, s)
	errs.wait()
	if out != nil {
		out.wait()
	}
	if err != nil {
		return Result{}, nil, nil, err
	}
	if res.Status == StatusSE {
		return Result{}, nil, nil, sandboxFailure("", res)
	}
	var outBuf []byte
	if out != nil {
		outBuf = out.buf
		if out.over && res.Status != StatusMLE && res.Status != StatusTLE {
			res.Status = StatusOLE
		}
	}
	if errs.over && res.Status != StatusMLE && res.Status != StatusTLE {
		res.Status = StatusOLE
	}
	return res, outBuf, errs.buf, nil
}

func ms(v int64) int { return int(v) }

func excerpt(b []byte, n int) string {
	if len(b) > n {
		return string(bytes.ToValidUTF8(b[:n], []byte("?"))) + truncatedMark
	}
	return string(bytes.ToValidUTF8(b, []byte("?")))
}
