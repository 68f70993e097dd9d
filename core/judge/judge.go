// Package judge turns a submission into a verdict: it fetches the problem package
// through the worker's cache, compiles the source in the sandbox, runs every case with
// the problem's limits times the language's factors, checks each output (compare modes,
// testlib checkers, interactors), and scores subtasks.
//
// What is an Outcome and what is an error. Judge returns an Outcome for everything
// decided about the submission, including verdict SE when a testlib checker or
// interactor crashes, exits 3 or with an unknown code, or gives malformed points (a
// broken checker never passes a solution). It returns a PermanentError when the package
// itself is broken — it cannot be read, or its checker or interactor does not compile:
// retrying would give the same answer, so the worker ends the submission at once as SE
// with that reason. Any other error means it could not decide and another attempt might:
// the object store or the cache failed, the sandbox could not run a program or reported
// its own failure (status SE, which includes a run the host held up past
// sandbox.max_stall: too busy to judge it), a checker's compile was cut short by its
// time limit, a compile waited past its wall limit with CPU time to spare, the worker
// lacks the language's toolchain, the context ended (see PermanentError).
//
// Verdicts do not change with the host's load. A wall-time TLE is the sandbox's call:
// it counts neither the time a program waited for a CPU nor the time it waited, blocked
// on a full pipe, for the judge to read its output (Result.Stalled), and ends a run for
// wall time only while it is idle. The judge reads output as cheaply as it can (see
// outputSink) and checks CPU time itself. A compile over its CPU limit is CE.
package judge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sync/singleflight"

	"oj/core/job"
	"oj/core/judge/cache"
	"oj/core/judge/lang"
	"oj/core/judge/objstore"
)

// Errors for tasks a judge cannot take.
var (
	ErrUnknownLanguage     = errors.New("unknown language")
	ErrLanguageUnavailable = errors.New("language toolchain unavailable on this worker")
	ErrClosed              = errors.New("judge closed")
)

// Judge judges tasks. It is safe for concurrent use; each Judge call uses its own
// directories and sandbox runs.
type Judge struct {
	cfg    Config
	runner Runner
	store  objstore.Store
	cache  *cache.Cache
	langs  *lang.Set
	// missing and versions are set at New and by DetectVersions (under mu).
	missing  map[string][]lang.Missing
	versions map[string]string
	log      *slog.Logger

	builds singleflight.Group // testlib checkers and interactors, per package
	pch    *pchSet
	warm   *warmCaches
	// stopSetup cancels the background set-up (precompiled headers, warm caches), so
	// that Close — and with it a worker's shutdown — never waits minutes for a build.
	stopSetup context.CancelFunc

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// New builds a judge: it loads the languages, checks their toolchains (logging those
// this host cannot provide, which Supports then refuses), opens the package cache and
// starts building precompiled headers and warming compile caches in the background.
func New(cfg Config, runner Runner, store objstore.Store, log *slog.Logger) (*Judge, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if runner == nil || store == nil {
		return nil, errors.New("judge: runner and store are required")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	langs, err := lang.Load(cfg.LanguagesFile)
	if err != nil {
		return nil, fmt.Errorf("judge.languages_file: %w", err)
	}
	if err := checkVisible(cfg, langs, runner); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.WorkDir, 0o711); err != nil {
		return nil, fmt.Errorf("judge: work dir: %w", err)
	}
	c, err := cache.New(cfg.Cache, store, cfg.PackageLimits)
	if err != nil {
		return nil, fmt.Errorf("judge: %w", err)
	}
	j := &Judge{cfg: cfg, runner: runner, store: store, cache: c, langs: langs,
		missing: map[string][]lang.Missing{}, versions: map[string]string{}, log: log}
	for _, m := range langs.CheckToolchains() {
		j.missing[m.Language] = append(j.missing[m.Language], m)
		log.Warn("language unavailable on this worker", "language", m.Language, "path", m.Path, "reason", m.Reason)
	}
	// Earlier versions kept the runs' output files in <work_dir>/io; runs' output comes
	// back through pipes now, so whatever a killed worker left there only goes.
	if err := os.RemoveAll(filepath.Join(cfg.WorkDir, "io")); err != nil {
		return nil, fmt.Errorf("judge.work_dir: %w", err)
	}
	found, err := mountTasks(cfg.WorkDir, j.tasksDir(), cfg.TasksTmpfsBytes)
	for _, f := range found {
		log.Info("judge.work_dir: " + f)
	}
	if err != nil {
		return nil, fmt.Errorf("judge.tasks_tmpfs_bytes: %w", err)
	}
	var setup context.Context
	setup, j.stopSetup = context.WithCancel(context.Background())
	j.pch = newPCHSet(filepath.Join(cfg.WorkDir, "pch"))
	j.warm = newWarmCaches(filepath.Join(cfg.WorkDir, "warm"))
	if cfg.PrecompiledHeaders {
		for _, l := range langs.All() {
			if len(j.missing[l.ID]) > 0 {
				continue
			}
			if l.PrecompiledHeader != nil {
				j.wg.Add(1)
				go func() {
					defer j.wg.Done()
					if err := j.pch.build(setup, l); err != nil && setup.Err() == nil {
						log.Warn("precompiled header not built; compiling without", "language", l.ID, "err", err)
					}
				}()
			}
			if l.CompileCache != nil {
				j.wg.Add(1)
				go func() {
					defer j.wg.Done()
					if err := j.warm.build(setup, l); err != nil && setup.Err() == nil {
						log.Warn("compile cache not warmed; compiling cold", "language", l.ID, "err", err)
					}
				}()
			}
		}
	}
	return j, nil
}

// checkVisible refuses, at start, host paths the judge shows to sandboxed programs that
// the sandbox's own mounts would hide: a work dir under /tmp (its precompiled headers
// and warm build caches are bound read-only into compiles) would otherwise fail every
// compile of the language, submission after submission.
func checkVisible(cfg Config, langs *lang.Set, runner Runner) error {
	wd, err := filepath.Abs(cfg.WorkDir)
	if err != nil {
		return fmt.Errorf("judge.work_dir: %w", err)
	}
	if r := runner.Hides(wd); r != "" {
		return fmt.Errorf("judge.work_dir %q is inside %s, which every sandboxed run gets a fresh one of: "+
			"the compilers' shared files there would be hidden from them; choose a directory outside /tmp, /dev and /proc "+
			"(e.g. /var/lib/oj/work)", cfg.WorkDir, r)
	}
	for _, d := range cfg.ToolIncludeDirs {
		if r := runner.Hides(d); r != "" {
			return fmt.Errorf("judge.tool_include_dirs: %q is inside %s, which the sandbox replaces in every run", d, r)
		}
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return fmt.Errorf("judge.tool_include_dirs: %q is not a directory on this host; create it (and put testlib.h there) or remove it from the list", d)
		}
	}
	for _, l := range langs.All() {
		for _, p := range l.ReadOnlyPaths {
			if r := runner.Hides(p); r != "" {
				return fmt.Errorf("judge.languages_file: language %s: read_only_paths entry %q is inside %s, which the sandbox replaces in every run",
					l.ID, p, r)
			}
		}
	}
	return nil
}

// Languages returns the configured languages.
func (j *Judge) Languages() *lang.Set { return j.langs }

// Supports reports whether this worker can judge the language (configured and its
// toolchain present). The worker should not claim tasks it does not support.
func (j *Judge) Supports(language string) bool {
	_, ok := j.langs.Get(language)
	j.mu.Lock()
	defer j.mu.Unlock()
	return ok && len(j.missing[language]) == 0
}

// Unavailable lists the configured languages whose toolchains this host lacks.
func (j *Judge) Unavailable() []lang.Missing {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []lang.Missing
	for _, ms := range j.missing {
		out = append(out, ms...)
	}
	return out
}

// WaitReady waits for the background set-up (precompiled headers) to finish.
func (j *Judge) WaitReady(ctx context.Context) error {
	done := make(chan struct{})
	go func() { j.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops the background set-up and waits for it; it releases nothing else: tasks in
// flight finish.
func (j *Judge) Close() error {
	j.mu.Lock()
	wasClosed := j.closed
	j.closed = true
	j.mu.Unlock()
	j.stopSetup()
	j.wg.Wait()
	if wasClosed {
		return nil
	}
	return unmountTasks(j.tasksDir(), j.cfg.TasksTmpfsBytes)
}

// tasksDir holds one directory per task being judged.
func (j *Judge) tasksDir() string { return filepath.Join(j.cfg.WorkDir, "tasks") }

// Judge judges one task (see the package comment for Outcome versus error) and keeps
// its artefacts before it returns: Decide, then Decision.Keep.
func (j *Judge) Judge(ctx context.Context, t job.Task) (job.Outcome, error) {
	d, err := j.Decide(ctx, t)
	if err != nil {
		return job.Outcome{}, err
	}
	if d.Keep != nil {
		d.Keep(ctx)
	}
	return d.Outcome, nil
}

// Decision is a judged task whose artefacts (compile log, case output excerpts) are not
// stored yet.
type Decision struct {
	Outcome job.Outcome
	// Keep stores the artefacts in the object store; nil when the judge keeps none
	// (store_artefacts off). They are diagnostics: a failure is logged, not returned.
	Keep func(ctx context.Context)
}

// Decide judges one task like Judge but leaves its artefacts to Decision.Keep, so that
// the caller can free what it holds for judging (a worker's judging slot) before the
// object store's disk or network is touched, and keep them before the verdict is seen.
func (j *Judge) Decide(ctx context.Context, t job.Task) (Decision, error) {
	j.mu.Lock()
	closed := j.closed
	j.mu.Unlock()
	if closed {
		return Decision{}, ErrClosed
	}
	l, ok := j.langs.Get(t.Language)
	if !ok {
		return Decision{}, fmt.Errorf("judge %s: %w %q", t.SubmissionID, ErrUnknownLanguage, t.Language)
	}
	if ms := j.missingOf(l.ID); len(ms) > 0 {
		return Decision{}, fmt.Errorf("judge %s: %w: %s", t.SubmissionID, ErrLanguageUnavailable, ms[0])
	}
	if t.Kind == job.KindRun {
		out, err := j.run(ctx, t, l)
		if err != nil {
			return Decision{}, fmt.Errorf("run %s: %w", t.SubmissionID, err)
		}
		return Decision{Outcome: out}, nil // a run's output is in its results: no artefacts
	}
	ent, err := j.acquire(ctx, t.ProblemSHA256)
	if err != nil {
		return Decision{}, fmt.Errorf("judge %s: %w", t.SubmissionID, err)
	}
	defer ent.Release()
	dir, err := os.MkdirTemp(j.tasksDir(), "task-")
	if err != nil {
		return Decision{}, fmt.Errorf("judge %s: %w", t.SubmissionID, err)
	}
	defer os.RemoveAll(dir)
	tk := &task{j: j, t: t, lang: l, ent: ent, dir: dir}
	out, arts, err := tk.judge(ctx)
	if err != nil {
		return Decision{}, fmt.Errorf("judge %s: %w", t.SubmissionID, err)
	}
	d := Decision{Outcome: out}
	if j.cfg.StoreArtefacts {
		d.Keep = func(ctx context.Context) { j.storeArtefacts(ctx, t, arts) }
	}
	return d, nil
}
