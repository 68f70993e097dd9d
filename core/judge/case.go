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
)

// caseOutcome is one case's result before scoring: res.Score is filled by score().
type caseOutcome struct {
	res    job.CaseResult
	points float64 // fraction of the case's score earned
	art    caseArt
}

// markerScan bounds how much of stderr is searched for a language's OOM marker.
const markerScan = 64 << 10

func (tk *task) caseFiles(i int) (in, ans string) {
	return filepath.Join(tk.ent.Dir, "tests", strconv.Itoa(i)+".in"),
		filepath.Join(tk.ent.Dir, "tests", strconv.Itoa(i)+".out")
}

func (tk *task) runSpec() Spec {
	vars := lang.Vars{Src: tk.lang.SourceFile, MemoryMB: tk.ent.Pkg.Spec.MemoryLimitMB, WorkDir: tk.j.runner.WorkDir()}
	return Spec{
		Argv:          lang.Expand(tk.lang.Run, vars),
		Env:           mergeEnv(baseEnv, lang.Expand(tk.lang.RunEnv, vars)),
		Dir:           tk.box,
		ReadOnlyPaths: tk.lang.ReadOnlyPaths,
		CPU:           tk.cpu,
		Wall:          tk.wall,
		MemoryBytes:   tk.mem,
		OutputBytes:   int64(tk.j.cfg.OutputLimitMB) << 20,
		StackBytes:    tk.mem,
		Processes:     tk.lang.Processes,
	}
}

// runCase runs the solution on case i and checks its output.
func (tk *task) runCase(ctx context.Context, i int) (caseOutcome, error) {
	inPath, ansPath := tk.caseFiles(i)
	outPath, errPath := filepath.Join(tk.io, "stdout"), filepath.Join(tk.io, "stderr")
	res, err := tk.runWithFiles(ctx, inPath, outPath, errPath)
	if err != nil {
		return caseOutcome{}, err
	}
	stderr := readHead(errPath, markerScan)
	co := caseOutcome{res: job.CaseResult{Index: i, TimeMS: ms(res.CPU.Milliseconds()), MemoryKB: int(res.MemoryKB)}}
	co.art.Stdout = excerpt(readHead(outPath, tk.j.cfg.ExcerptBytes+1), tk.j.cfg.ExcerptBytes)
	co.art.Stderr = excerpt(stderr, tk.j.cfg.ExcerptBytes)
	full := fileAtLeast(outPath, tk.runSpec().OutputBytes) || fileAtLeast(errPath, tk.runSpec().OutputBytes)
	if v, msg := tk.resourceVerdict(res, stderr, full); v != "" {
		co.res.Verdict, co.res.Message = v, msg
		return co, nil
	}
	var r check.Result
	if tk.checker != "" {
		r, err = tk.runChecker(ctx, inPath, outPath, ansPath)
		if err != nil {
			return caseOutcome{}, err
		}
		co.art.Checker = r.CheckerMessage
	} else {
		out, err := os.ReadFile(outPath)
		if err != nil {
			return caseOutcome{}, err
		}
		ans, err := os.ReadFile(ansPath)
		if err != nil {
			return caseOutcome{}, err
		}
		c := tk.ent.Pkg.Spec.Checker
		if r, err = check.Compare(c.Type, c.Epsilon, out, ans); err != nil {
			return caseOutcome{}, err
		}
	}
	co.res.Verdict, co.points, co.res.Message = r.Verdict, r.Points, clipString(r.Message, 256)
	co.res.CheckerMessage = clipString(r.CheckerMessage, 256) // admins only
	return co, nil
}

func (tk *task) runWithFiles(ctx context.Context, inPath, outPath, errPath string) (Result, error) {
	in, err := os.Open(inPath)
	if err != nil {
		return Result{}, err
	}
	defer in.Close()
	out, err := os.Create(outPath)
	if err != nil {
		return Result{}, err
	}
	defer out.Close()
	errf, err := os.Create(errPath)
	if err != nil {
		return Result{}, err
	}
	defer errf.Close()
	s := tk.runSpec()
	s.Stdin, s.Stdout, s.Stderr = in, out, errf
	res, err := tk.j.runner.Run(ctx, s)
	if err != nil {
		return Result{}, fmt.Errorf("run: %w", err)
	}
	if res.Status == StatusSE {
		return Result{}, fmt.Errorf("run: sandbox failure: %s", res.Error)
	}
	return res, nil
}

// resourceVerdict applies DESIGN.md's precedence for one run: MLE, TLE (CPU or wall),
// OLE, RE (signal or non-zero exit); "" when the program ended normally. outputFull
// (an output file reached the limit) counts as OLE ahead of TLE and RE: runtimes that
// ignore SIGXFSZ (Python, the JVM) then fail or spin on the refused write, and what
// went wrong first was the output.
func (tk *task) resourceVerdict(res Result, stderr []byte, outputFull bool) (job.Verdict, string) {
	oom := tk.lang.OOMMarker != "" && bytes.Contains(stderr, []byte(tk.lang.OOMMarker))
	switch {
	case res.Status == StatusMLE:
		return job.VerdictMLE, "memory limit exceeded"
	case outputFull:
		return job.VerdictOLE, "output limit exceeded"
	case res.Status == StatusTLE || res.CPU > tk.cpu:
		return job.VerdictTLE, "time limit exceeded"
	case res.Wall > tk.wall:
		return job.VerdictTLE, "wall time limit exceeded"
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

// runChecker runs the testlib checker: checker input output answer.
func (tk *task) runChecker(ctx context.Context, inPath, outPath, ansPath string) (check.Result, error) {
	box := filepath.Join(tk.dir, "checker")
	if _, err := os.Stat(box); err != nil {
		if err := mkdirs(box); err != nil {
			return check.Result{}, err
		}
		if err := linkOrCopy(tk.checker, filepath.Join(box, "checker")); err != nil {
			return check.Result{}, err
		}
	}
	for src, name := range map[string]string{inPath: "input.txt", outPath: "output.txt", ansPath: "answer.txt"} {
		if err := linkOrCopy(src, filepath.Join(box, name)); err != nil {
			return check.Result{}, err
		}
	}
	res, stdout, stderr, err := tk.runTool(ctx, box, []string{"./checker", "input.txt", "output.txt", "answer.txt"}, nil, nil, tk.j.cfg.Checker.Wall, nil)
	if err != nil {
		return check.Result{}, fmt.Errorf("checker: %w", err)
	}
	return check.Testlib(toolEndedNormally(res), res.ExitCode, stdout, stderr), nil
}

// toolEndedNormally: a checker's exit code counts only when it exited by itself within
// its limits (the sandbox may call a non-zero exit RE).
func toolEndedNormally(res Result) bool {
	return (res.Status == StatusOK || res.Status == StatusRE) && res.Signal == 0
}

// runTool runs a checker or interactor under the checker limits. stdin/stdout may be
// pipes; when stdout is nil it is captured and returned.
func (tk *task) runTool(ctx context.Context, box string, argv []string, stdin, stdout *os.File, wall time.Duration, onStart func()) (Result, []byte, []byte, error) {
	lim := tk.j.cfg.Checker
	errPath := filepath.Join(tk.io, filepath.Base(box)+".stderr")
	errf, err := os.Create(errPath)
	if err != nil {
		return Result{}, nil, nil, err
	}
	defer errf.Close()
	var outPath string
	if stdout == nil {
		outPath = filepath.Join(tk.io, filepath.Base(box)+".stdout")
		f, err := os.Create(outPath)
		if err != nil {
			return Result{}, nil, nil, err
		}
		defer f.Close()
		stdout = f
	}
	s := Spec{
		Argv:        argv,
		Env:         baseEnv,
		Dir:         box,
		Stdin:       stdin,
		Stdout:      stdout,
		Stderr:      errf,
		CPU:         lim.CPU,
		Wall:        wall,
		MemoryBytes: int64(lim.MemoryMB) << 20,
		OutputBytes: int64(lim.OutputMB) << 20,
		StackBytes:  int64(lim.MemoryMB) << 20,
		Processes:   lim.Processes,
		OnStart:     onStart,
	}
	res, err := tk.j.runner.Run(ctx, s)
	if err != nil {
		return Result{}, nil, nil, err
	}
	if res.Status == StatusSE {
		return Result{}, nil, nil, fmt.Errorf("sandbox failure: %s", res.Error)
	}
	var out []byte
	if outPath != "" {
		out = readHead(outPath, 4096)
	}
	return res, out, readHead(errPath, 4096), nil
}

func ms(v int64) int { return int(v) }

func fileAtLeast(path string, n int64) bool {
	st, err := os.Stat(path)
	return err == nil && st.Size() >= n
}

func excerpt(b []byte, n int) string {
	if len(b) > n {
		return string(bytes.ToValidUTF8(b[:n], []byte("?"))) + "…[truncated]"
	}
	return string(bytes.ToValidUTF8(b, []byte("?")))
}
