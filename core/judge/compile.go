package judge

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"oj/core/judge/lang"
)

// compiled is a compile's result: ok, or CE with the compiler's output.
type compiled struct {
	ok     bool
	output string
}

// compile runs l's compiler in box (where the source already is) under the compile
// limits; its output comes back through a pipe (outputSink), never through the disk.
func (j *Judge) compile(ctx context.Context, l *lang.Language, box string) (compiled, error) {
	pchDir := j.pch.dir(l)
	argv := l.Compile
	if pchDir == "" {
		argv = dropPlaceholder(argv, "{pch_dir}")
	}
	vars := lang.Vars{Src: l.SourceFile, PCHDir: pchDir, WorkDir: j.runner.WorkDir()}
	argv = lang.Expand(argv, vars)
	if l.CompileCache != nil {
		if tmpl := j.warm.template(l); tmpl != "" {
			if err := replicate(tmpl, filepath.Join(box, l.CompileCache.Dir)); err != nil {
				return compiled{}, fmt.Errorf("compile cache: %w", err)
			}
		}
	}
	lim := j.cfg.Compile
	log, err := newOutputSink(j.cfg.CompileOutputBytes+1, int64(lim.OutputMB)<<20)
	if err != nil {
		return compiled{}, err
	}
	defer log.wait()
	factor := l.CompileTimeFactor
	if factor == 0 {
		factor = 1
	}
	ro := l.ReadOnlyPaths
	if pchDir != "" {
		ro = append(append([]string(nil), ro...), pchDir)
	}
	cpu := time.Duration(float64(lim.CPU) * factor)
	res, err := j.runner.Run(ctx, Spec{
		Argv:          argv,
		Env:           mergeEnv(baseEnv, lang.Expand(l.CompileEnv, vars)),
		Dir:           box,
		KeepWrites:    true, // the binary, class files, the build cache's new entries
		ReadOnlyPaths: ro,
		Stdout:        log.w,
		Stderr:        log.w,
		CPU:           cpu,
		Wall:          time.Duration(float64(lim.Wall) * factor),
		MemoryBytes:   int64(lim.MemoryMB) << 20,
		OutputBytes:   int64(lim.OutputMB) << 20,
		StackBytes:    int64(lim.MemoryMB) << 20,
		Processes:     max(lim.Processes, l.CompileProcesses),
	})
	log.wait()
	if err != nil {
		return compiled{}, fmt.Errorf("compile: %w", err)
	}
	if res.Status == StatusSE {
		return compiled{}, fmt.Errorf("compile: sandbox failure: %s", res.Error)
	}
	out := strings.ToValidUTF8(string(log.buf), "?")
	if len(out) > j.cfg.CompileOutputBytes {
		out = out[:j.cfg.CompileOutputBytes] + "\n…[truncated]\n"
	}
	switch {
	case res.Status == StatusTLE:
		return compiled{output: out + fmt.Sprintf("\ncompilation exceeded its time limit (%v CPU)\n", cpu)}, nil
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

func dropPlaceholder(argv []string, ph string) []string {
	out := make([]string, 0, len(argv))
	for _, a := range argv {
		if !strings.Contains(a, ph) {
			out = append(out, a)
		}
	}
	return out
}

// toolLanguage picks the language a checker or interactor source compiles with.
func (j *Judge) toolLanguage(source string) (*lang.Language, error) {
	id := "cpp17"
	if strings.HasSuffix(source, ".c") {
		id = "c11"
	}
	l, ok := j.langs.Get(id)
	if !ok || !l.Compiled() {
		return nil, fmt.Errorf("%w: %s (needed for %s)", ErrUnknownLanguage, id, source)
	}
	if ms := j.missing[id]; len(ms) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrLanguageUnavailable, ms[0])
	}
	return l, nil
}

type toolBuild struct {
	bin    string
	broken string
}

// buildTool returns the binary of a package's checker or interactor, compiling it in
// the sandbox once per package version (kept in the cache entry, under .build/). broken
// is the compiler's output when the source does not compile.
func (j *Judge) buildTool(ctx context.Context, tk *task, source string) (bin, broken string, err error) {
	bin = filepath.Join(tk.ent.Dir, ".build", source+".bin")
	if _, err := os.Stat(bin); err == nil {
		return bin, "", nil
	}
	v, err, _ := j.builds.Do(tk.ent.SHA+"/"+source, func() (any, error) {
		if _, err := os.Stat(bin); err == nil {
			return toolBuild{bin: bin}, nil
		}
		l, err := j.toolLanguage(source)
		if err != nil {
			return nil, err
		}
		dir, err := os.MkdirTemp(tk.dir, "build-")
		if err != nil {
			return nil, err
		}
		box := filepath.Join(dir, "box")
		if err := mkdirs(box); err != nil {
			return nil, err
		}
		if err := copyFile(filepath.Join(tk.ent.Dir, source), filepath.Join(box, l.SourceFile), 0o644); err != nil {
			return nil, err
		}
		// Headers at the package's top level (testlib.h and the like) sit next to it.
		des, _ := os.ReadDir(tk.ent.Dir)
		for _, de := range des {
			if de.Type().IsRegular() && (strings.HasSuffix(de.Name(), ".h") || strings.HasSuffix(de.Name(), ".hpp")) {
				if err := copyFile(filepath.Join(tk.ent.Dir, de.Name()), filepath.Join(box, de.Name()), 0o644); err != nil {
					return nil, err
				}
			}
		}
		c, err := j.compile(ctx, l, box)
		if err != nil {
			return nil, err
		}
		if !c.ok {
			return toolBuild{broken: c.output}, nil
		}
		if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
			return nil, err
		}
		tmp := bin + ".tmp"
		if err := copyOut(box, "main", tmp, 0o755); err != nil {
			return nil, fmt.Errorf("%s built no binary: %w", source, err)
		}
		if err := os.Rename(tmp, bin); err != nil {
			return nil, err
		}
		if st, err := os.Stat(bin); err == nil {
			tk.ent.Grow(st.Size())
		}
		return toolBuild{bin: bin}, nil
	})
	if err != nil {
		return "", "", fmt.Errorf("build %s: %w", source, err)
	}
	tb := v.(toolBuild)
	return tb.bin, tb.broken, nil
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
