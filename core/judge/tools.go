package judge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"oj/core/judge/cache"
	"oj/core/judge/lang"
	"oj/core/judge/problem"
)

// toolBuildTries bounds the compiles of one checker or interactor that are cut short by
// a time limit or fail in the sandbox, before the build gives up with an error to retry.
const toolBuildTries = 3

// toolBuildBackoff is the wait before the second try; it doubles after each.
var toolBuildBackoff = time.Second

// At upload a build has the upload's deadline (its context's): every try's wall limit is
// what is left of it, less deadlineSlack so that the sandbox's own limit ends the try
// and says so, and no try starts with less than minToolTry left.
const (
	deadlineSlack = 250 * time.Millisecond
	minToolTry    = time.Second
)

// toolLanguage picks the language a checker or interactor source compiles with. A
// language this worker lacks is an error to retry (another worker may have it).
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

// tools lists the sources a package's spec needs built, with their kind.
func tools(spec problem.Spec) [][2]string {
	var out [][2]string
	if spec.Checker.Type == problem.CheckerTestlib {
		out = append(out, [2]string{"checker", spec.Checker.Source})
	}
	if spec.Interactor != "" {
		out = append(out, [2]string{"interactor", spec.Interactor})
	}
	return out
}

// NeedsBuild reports whether a package has a checker or interactor to compile.
func NeedsBuild(spec problem.Spec) bool { return len(tools(spec)) > 0 }

// BuildTools compiles the checker and interactor of the package with the given sha256
// (fetched through the cache) and keeps the binaries in the cache, as judging would: the
// build of an upload, within ctx's deadline (the upload's). It returns nil when every
// tool built; a PermanentError when the package is invalid, a tool does not compile (a
// ToolCompileError) or does not compile within its bound (a ToolTimeoutError, whether
// the bound is judge.tool_compile's or what is left of the deadline); any other error
// (the sandbox, the object store) may succeed on retry.
func (j *Judge) BuildTools(ctx context.Context, sha string) error {
	j.mu.Lock()
	closed := j.closed
	j.mu.Unlock()
	if closed {
		return ErrClosed
	}
	ent, err := j.acquire(ctx, sha)
	if err != nil {
		return err
	}
	defer ent.Release()
	for _, t := range tools(ent.Pkg.Spec) {
		if _, err := j.buildTool(ctx, ent, j.tasksDir(), t[0], t[1], true); err != nil {
			return err
		}
	}
	return nil
}

// acquire takes a package from the cache; a package that cannot be read is permanent.
func (j *Judge) acquire(ctx context.Context, sha string) (*cache.Entry, error) {
	ent, err := j.cache.Acquire(ctx, sha)
	if err != nil && problem.IsInvalid(err) {
		return nil, Permanent(err)
	}
	return ent, err
}

type toolBuild struct {
	bin string
}

// buildTool returns the binary of a package's checker or interactor (kind), compiling it
// in the sandbox once per package version and keeping it in the cache entry, under
// .build/. scratch is where its temporary work dir goes. A compile that fails within its
// limits is a PermanentError carrying a ToolCompileError. A compile failing in the
// sandbox is tried again (toolBuildTries in all, with backoff) and then returned as an
// error to retry. A compile cut short by its time limit is, while judging, tried again
// the same way: a loaded host must never turn into a verdict. At upload it is the answer,
// a PermanentError carrying a ToolTimeoutError: a compile that blocks never finishes, and
// the upload waits for one answer, so every try fits in what is left of its deadline.
func (j *Judge) buildTool(ctx context.Context, ent *cache.Entry, scratch, kind, source string, upload bool) (string, error) {
	bin := filepath.Join(ent.Dir, ".build", source+".bin")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	key := ent.SHA + "/" + source
	if upload {
		key += "/upload" // never hand a judging caller an upload's answer to a cut, nor back
	}
	v, err, _ := j.builds.Do(key, func() (any, error) {
		if _, err := os.Stat(bin); err == nil {
			return toolBuild{bin: bin}, nil
		}
		l, err := j.toolLanguage(source)
		if err != nil {
			return nil, err
		}
		wait := toolBuildBackoff
		for try := 1; ; try++ {
			var maxWall time.Duration
			if dl, ok := ctx.Deadline(); ok && upload {
				maxWall = time.Until(dl) - deadlineSlack
				if maxWall < minToolTry {
					return nil, Permanent(&ToolTimeoutError{Kind: kind, Source: source, Key: KeyToolBuildTimeout,
						Bound: max(maxWall, 0)})
				}
			}
			err := j.compileTool(ctx, l, ent, scratch, kind, source, bin, maxWall)
			if err == nil {
				return toolBuild{bin: bin}, nil
			}
			var again *retryableBuild
			retryable := errors.As(err, &again)
			if upload {
				switch {
				case retryable && again.cut != nil:
					return nil, Permanent(again.cut)
				case !IsPermanent(err) && errors.Is(ctx.Err(), context.DeadlineExceeded):
					return nil, Permanent(&ToolTimeoutError{Kind: kind, Source: source, Key: KeyToolBuildTimeout, Bound: maxWall})
				}
			}
			if !retryable || try == toolBuildTries || ctx.Err() != nil {
				if retryable {
					return nil, fmt.Errorf("%s %s: %d tries: %w", kind, source, try, again.err)
				}
				return nil, err
			}
			if dl, ok := ctx.Deadline(); ok && upload && time.Until(dl)-wait-deadlineSlack < minToolTry {
				return nil, fmt.Errorf("%s %s: %d tries, no time left for another: %w", kind, source, try, again.err)
			}
			j.log.Warn("tool build failed, trying again", "kind", kind, "source", source, "sha256", ent.SHA,
				"try", try, "err", again.err)
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			wait *= 2
		}
	})
	if err != nil {
		return "", fmt.Errorf("build %s: %w", source, err)
	}
	return v.(toolBuild).bin, nil
}

// retryableBuild is a compile try that may succeed if tried again; cut, when the try was
// cut short by a time limit, says which.
type retryableBuild struct {
	err error
	cut *ToolTimeoutError
}

func (e *retryableBuild) Error() string { return e.err.Error() }

// compileTool compiles source once, in a fresh work dir under scratch, under the tool
// compile limits (the wall limit capped at maxWall when positive), with the package's
// top-level headers next to it and the configured include dirs visible, and moves the
// binary to bin.
func (j *Judge) compileTool(ctx context.Context, l *lang.Language, ent *cache.Entry, scratch, kind, source, bin string, maxWall time.Duration) error {
	dir, err := os.MkdirTemp(scratch, "build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	box := filepath.Join(dir, "box")
	if err := mkdirs(box); err != nil {
		return err
	}
	// The source keeps its own name, so the compiler's messages name it.
	if err := copyFile(filepath.Join(ent.Dir, source), filepath.Join(box, source), 0o644); err != nil {
		return err
	}
	// Headers at the package's top level (testlib.h and the like) sit next to it.
	des, _ := os.ReadDir(ent.Dir)
	for _, de := range des {
		if de.Type().IsRegular() && (strings.HasSuffix(de.Name(), ".h") || strings.HasSuffix(de.Name(), ".hpp")) {
			if err := copyFile(filepath.Join(ent.Dir, de.Name()), filepath.Join(box, de.Name()), 0o644); err != nil {
				return err
			}
		}
	}
	extra := make([]string, 0, len(j.cfg.ToolIncludeDirs))
	for _, d := range j.cfg.ToolIncludeDirs {
		extra = append(extra, "-I"+d)
	}
	// The package checked the name already; as a path ("./name") it stays a file to the
	// compiler even if it began with '-' (an option) or '@' (a file of options).
	c, err := j.compileWith(ctx, l, box, compileOpts{lim: j.cfg.ToolCompile, src: "./" + source, extra: extra,
		ro: j.cfg.ToolIncludeDirs, maxWall: maxWall})
	switch {
	case err != nil && ctx.Err() == nil:
		return &retryableBuild{err: err}
	case err != nil:
		return err
	case c.timedOut:
		cut := &ToolTimeoutError{Kind: kind, Source: source, Key: KeyToolCompileWall, Bound: c.wall}
		switch {
		case c.cpuCut:
			cut.Key, cut.Bound = KeyToolCompileCPU, c.cpu
		case c.capped:
			cut.Key = KeyToolBuildTimeout
		}
		return &retryableBuild{cut: cut, err: fmt.Errorf("compile cut short by its time limit (judge.tool_compile): %s",
			strings.TrimSpace(lastLine(c.output)))}
	case !c.ok:
		return Permanent(&ToolCompileError{Kind: kind, Source: source, Output: c.output})
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return err
	}
	// Each try's own temporary name: an upload's build and a judging one may run at once.
	tmp := bin + "." + filepath.Base(dir) + ".tmp"
	if _, err := os.Lstat(filepath.Join(box, "main")); errors.Is(err, fs.ErrNotExist) {
		// The compiler said it succeeded and left nothing: the source's doing (its
		// output says what the compiler did instead), and the same on every try.
		return Permanent(&ToolCompileError{Kind: kind, Source: source,
			Output: strings.TrimRight(c.output, "\n") + "\nthe compiler exited 0 but wrote no binary\n"})
	}
	if err := copyOut(box, "main", tmp, 0o755); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s built a binary this worker could not keep: %w", source, err)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return err
	}
	if st, err := os.Stat(bin); err == nil {
		ent.Grow(st.Size())
	}
	return nil
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
