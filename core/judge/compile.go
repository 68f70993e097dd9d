package judge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"oj/core/judge/lang"
	"oj/sandbox"
)

// compiled is a compile's result: ok, or CE with the compiler's output. timedOut says
// the compile was cut short by its CPU or wall limit, which a loaded host can cause;
// cpuCut that it was the CPU limit, wall the wall limit it ran under.
type compiled struct {
	ok       bool
	output   string
	timedOut bool
	cpuCut   bool
	cpu      time.Duration
	wall     time.Duration
	capped   bool // the wall limit was opts.maxWall, under the configured one
}

// compileOpts are what differs between compiling a submission and compiling a
// package's checker or interactor.
type compileOpts struct {
	lim   Limits
	src   string   // the source's name in box; empty: the language's source file
	extra []string // arguments added to the compiler's (include dirs)
	ro    []string // host paths the compiler may read besides the language's
	// maxWall, when positive, caps the wall limit (what is left of a caller's deadline).
	maxWall time.Duration
	// beforeSrc are arguments inserted just before the source's argument (a run's
	// compiler_args), or appended when the command has none.
	beforeSrc []string
	// raw keeps the compiler's output byte for byte (a run's), rather than as valid UTF-8.
	raw bool
}

// compileWith runs l's compiler in box (where the source already is) under the limits
// of o; its output comes back through a pipe (outputSink), never through the disk.
func (j *Judge) compileWith(ctx context.Context, l *lang.Language, box string, o compileOpts) (compiled, error) {
	pchDir := j.pch.dir(l)
	argv := l.Compile
	if pchDir == "" {
		argv = dropPlaceholder(argv, "{pch_dir}")
	}
	src := l.SourceFile
	if o.src != "" {
		src = o.src
	}
	vars := lang.Vars{Src: src, PCHDir: pchDir, WorkDir: j.runner.WorkDir()}
	// The caller's arguments go in after the expansion: they are argv entries, never
	// templates.
	at := placeholderAt(argv, "{src}")
	argv = lang.Expand(argv, vars)
	argv = append(append(append(append([]string(nil), argv[:at]...), o.beforeSrc...), argv[at:]...), o.extra...)
	if l.CompileCache != nil {
		if tmpl := j.warm.template(l); tmpl != "" {
			if err := replicate(tmpl, filepath.Join(box, l.CompileCache.Dir)); err != nil {
				return compiled{}, fmt.Errorf("compile cache: %w", err)
			}
		}
	}
	lim := o.lim
	log, err := newOutputSink(j.cfg.CompileOutputBytes+1, int64(lim.OutputMB)<<20)
	if err != nil {
		return compiled{}, err
	}
	defer log.wait()
	factor := l.CompileTimeFactor
	if factor == 0 {
		factor = 1
	}
	ro := append(append([]string(nil), l.ReadOnlyPaths...), o.ro...)
	if pchDir != "" {
		ro = append(ro, pchDir)
	}
	cpu := time.Duration(float64(lim.CPU) * factor)
	wall := time.Duration(float64(lim.Wall) * factor)
	capped := o.maxWall > 0 && o.maxWall < wall
	if capped {
		wall = o.maxWall
	}
	res, err := j.runner.Run(ctx, Spec{
		Argv:          argv,
		Env:           mergeEnv(baseEnv, lang.Expand(l.CompileEnv, vars)),
		Dir:           box,
		KeepWrites:    true, // the binary, class files, the build cache's new entries
		ReadOnlyPaths: ro,
		Stdout:        log.w,
		Stderr:        log.w,
		StdoutDrained: true,
		StderrDrained: true,
		CPU:           cpu,
		Wall:          wall,
		MemoryBytes:   int64(lim.MemoryMB) << 20,
		OutputBytes:   int64(lim.OutputMB) << 20,
		StackBytes:    int64(lim.MemoryMB) << 20,
		Processes:     max(lim.Processes, l.CompileProcesses),
		OnStart:       func() { log.w.Close() },
	})
	log.wait()
	if errors.Is(err, sandbox.ErrWriteBackLimit) {
		// The compile wrote more files, links or bytes than the judge copies back: the
		// source's doing (a build that hard-links a file thousands of times), not the
		// host's, so a compile error rather than a retried system error.
		return compiled{output: o.text(log.buf) +
			fmt.Sprintf("\ncompilation wrote more than the judge keeps: %v\n", err)}, nil
	}
	if err != nil {
		return compiled{}, fmt.Errorf("compile: %w", err)
	}
	if res.Status == StatusSE {
		return compiled{}, sandboxFailure("compile: ", res)
	}
	out := o.text(log.buf)
	if len(out) > j.cfg.CompileOutputBytes {
		out = out[:j.cfg.CompileOutputBytes] + "\n…[truncated]\n"
	}
	switch {
	case res.Status == StatusTLE:
		return compiled{timedOut: true, cpuCut: res.CPU >= cpu, cpu: cpu, wall: wall, capped: capped && res.CPU < cpu,
			output: out + fmt.Sprintf("\ncompilation exceeded its time limit (%v CPU, %v wall)\n", cpu, wall)}, nil
	case res.Status == StatusMLE:
		return compiled{output: out + fmt.Sprintf("\ncompilation exceeded its memory limit (%d MiB)\n", lim.MemoryMB)}, nil
	case res.Status == StatusOLE || log.over:
		return compiled{output: out + "\ncompilation wrote too much output\n"}, nil
	case res.Status != StatusOK || res.ExitCode != 0 || res.Signal != 0:
		if out == "" {
			out = fmt.Sprintf("compiler exited with code %d, signal %d\n", res.ExitCode, res.Signal)
		}
		return compiled{output: out}, nil
	}
	return compiled{ok: true, output: out}, nil
}

// text is a compiler's output as the compile returns it.
func (o compileOpts) text(b []byte) string {
	if o.raw {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "?")
}

// placeholderAt is the index of argv's first element that holds placeholder ph, or
// len(argv) when none does.
func placeholderAt(argv []string, ph string) int {
	for i, a := range argv {
		if strings.Contains(a, ph) {
			return i
		}
	}
	return len(argv)
}

func dropPlaceholder(argv []string, ph string) []string {
	out := make([]string, 0, len(argv))
	for _, a := range argv {
		if !strings.Contains(a, ph) {
			out = append(out, a)
		}
	}
	return out
}

func copyFile(src, dst string, mode os.FileMode) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.WriteFile(dst, b, mode); err != nil {
		return err
	}
	return os.Chmod(dst, mode)
}

// copyOut copies a file a sandboxed program left in its work dir, refusing a symlink
// there (the program may have left one pointing at a host file).
func copyOut(box, name, dst string, mode os.FileMode) error {
	f, err := os.OpenFile(filepath.Join(box, name), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", name)
	}
	w, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, f); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, mode)
}

// linkOrCopy makes dst the same content as src: a hard link when possible (test data
// can be large), a copy otherwise (another filesystem).
func linkOrCopy(src, dst string) error {
	os.Remove(dst)
	if os.Link(src, dst) == nil {
		return nil
	}
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	return copyFile(src, dst, st.Mode().Perm())
}
