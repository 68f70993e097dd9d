package judge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
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

// toolLanguage picks the language a checker, interactor or validator source compiles
// with: c11 for .c, python3 for .py (a Kattis validator), cpp17 otherwise. A language
// this worker lacks is an error to retry (another worker may have it).
func (j *Judge) toolLanguage(source string) (*lang.Language, error) {
	id := "cpp17"
	switch path.Ext(source) {
	case ".c":
		id = "c11"
	case ".py":
		id = "python3"
	}
	l, ok := j.langs.Get(id)
	if !ok || !l.Compiled() {
		return nil, fmt.Errorf("%w: %s (needed for %s)", ErrUnknownLanguage, id, source)
	}
	if ms := j.missingOf(id); len(ms) > 0 {
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
	if spec.Checker.Type == problem.CheckerKattis {
		out = append(out, [2]string{"validator", spec.Checker.Source})
	}
	if spec.Interactor != "" {
		out = append(out, [2]string{"interactor", spec.Interactor})
	}
	return out
}

// tool is a built checker, interactor or validator: the artefact kept in the cache
// entry (bin), the name it takes in a run's work dir and the command that runs it
// there (the language's run command: ./main, or python3 … main.pyc).
type tool struct {
	bin  string
	name string
	argv []string
	ro   []string
}

// toolArtefact is the file a language's compile leaves for its run command: the run
// command's last argument without "./" (main, main.pyc).
func toolArtefact(l *lang.Language) (string, error) {
	name := strings.TrimPrefix(l.Run[len(l.Run)-1], "./")
	if name == "" || strings.ContainsAny(name, "/{}") {
		return "", fmt.Errorf("language %s cannot build tools: its run command does not end in the file its compile makes", l.ID)
	}
	return name, nil
}

// NeedsBuild reports whether a package has a checker or interactor to compile.
func NeedsBuild(spec problem.Spec) bool { return len(tools(spec)) > 0 }

// BuildTools compiles the checker, validator and interactor of the package with the
// given sha256 (fetched through the cache) and keeps the binaries in the cache, as
// judging would: the build of an upload, within ctx's deadline (the upload's). It
// returns nil when every tool built; a PermanentError when the package is invalid, a
// tool does not compile (a ToolCompileError) or does not compile within its bound (a
// ToolTimeoutError, whether the bound is judge.tool_compile's or what is left of the
// deadline); any other error (the sandbox, the object store) may succeed on retry.
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

// buildTool returns a package's checker, validator or interactor (kind), compiling it
// in the sandbox once per package version and keeping it in the cache entry, under
// .build/. scratch is where its temporary work dir goes. A compile that fails within its
// limits is a PermanentError carrying a ToolCompileError. A compile failing in the
// sandbox is tried again (toolBuildTries in all, with backoff) and then returned as an
// error to retry. A compile cut short by its time limit is, while judging, tried again
// the same way: a loaded host must never turn into a verdict. At upload it is the answer,
// a PermanentError carrying a ToolTimeoutError: a compile that blocks never finishes, and
// the upload waits for one answer, so every try fits in what is left of its deadline.
func (j *Judge) buildTool(ctx context.Context, ent *cache.Entry, scratch, kind, source string, upload bool) (*tool, error) {
	l, err := j.toolLanguage(source)
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", source, err)
	}
	name, err := toolArtefact(l)
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", source, err)
	}
	t := &tool{bin: filepath.Join(ent.Dir, ".build", source+".bin"), name: name,
		argv: lang.Expand(l.Run, lang.Vars{Src: name, WorkDir: j.runner.WorkDir()}), ro: l.ReadOnlyPaths}
	if _, err := os.Stat(t.bin); err == nil {
		return t, nil
	}
	key := ent.SHA + "/" + source
	if upload {
		key += "/upload" // never hand a judging caller an upload's answer to a cut, nor back
	}
	_, err, _ = j.builds.Do(key, func() (any, error) {
		if _, err := os.Stat(t.bin); err == nil {
			return nil, nil
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
			err := j.compileTool(ctx, l, ent, scratch, kind, source, name, t.bin, maxWall)
			if err == nil {
				return nil, nil
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
		return nil, fmt.Errorf("build %s: %w", source, err)
	}
	return t, nil
}

// retryableBuild is a compile try that may succeed if tried again; cut, when the try was
// cut short by a time limit, says which.
type retryableBuild struct {
	err error
	cut *ToolTimeoutError
}

func (e *retryableBuild) Error() string { return e.err.Error() }

// compileTool compiles source once, in a fresh work dir under scratch, under the tool
// compile limits (the wall limit capped at maxWall when positive), with the headers of
// its folder (the package's top level, or a Kattis validator's own folder) next to it
// and the configured include dirs visible, and moves the artefact its compile leaves
// (artefact) to bin.
func (j *Judge) compileTool(ctx context.Context, l *lang.Language, ent *cache.Entry, scratch, kind, source, artefact, bin string, maxWall time.Duration) error {
	dir, err := os.MkdirTemp(scratch, "build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	box := filepath.Join(dir, "box")
	if err := mkdirs(box); err != nil {
		return err
	}
	// The source keeps its own name, so the compiler's messages name it — unless the
	// language's compile names its source itself (Python's byte-compile of main.py).
	srcDir, srcName := path.Split(source)
	if !slices.ContainsFunc(l.Compile, func(a string) bool { return strings.Contains(a, "{src}") }) {
		srcName = l.SourceFile
	}
	if err := copyFile(filepath.Join(ent.Dir, filepath.FromSlash(source)), filepath.Join(box, srcName), 0o644); err != nil {
		return err
	}
	// Headers of the source's folder (testlib.h, a Kattis validate.h) sit next to it.
	des, _ := os.ReadDir(filepath.Join(ent.Dir, filepath.FromSlash(srcDir)))
	for _, de := range des {
		if de.Type().IsRegular() && (strings.HasSuffix(de.Name(), ".h") || strings.HasSuffix(de.Name(), ".hpp")) {
			if err := copyFile(filepath.Join(ent.Dir, filepath.FromSlash(srcDir), de.Name()), filepath.Join(box, de.Name()), 0o644); err != nil {
				return err
			}
		}
	}
	extra := make([]string, 0, len(j.cfg.ToolIncludeDirs))
	if path.Ext(source) != ".py" {
		for _, d := range j.cfg.ToolIncludeDirs {
			extra = append(extra, "-I"+d)
		}
	}
	// The package checked the name already; as a path ("./name") it stays a file to the
	// compiler even if it began with '-' (an option) or '@' (a file of options).
	c, err := j.compileWith(ctx, l, box, compileOpts{lim: j.cfg.ToolCompile, src: "./" + srcName, extra: extra,
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
	if _, err := os.Lstat(filepath.Join(box, artefact)); errors.Is(err, fs.ErrNotExist) {
		// The compiler said it succeeded and left nothing: the source's doing (its
		// output says what the compiler did instead), and the same on every try.
		return Permanent(&ToolCompileError{Kind: kind, Source: source,
			Output: strings.TrimRight(c.output, "\n") + "\nthe compiler exited 0 but wrote no binary\n"})
	}
	if err := copyOut(box, artefact, tmp, 0o755); err != nil {
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
