package judge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/judge/cache"
	"oj/core/judge/objstore"
	"oj/core/judge/problem/problemtest"
)

// fakeRun is what a fakeRunner answers for one input: the Result the sandbox would
// report and what the program would have written.
type fakeRun struct {
	res            Result
	stdout, stderr string
	// overflow writes one byte more than Spec.OutputBytes to stdout, as a program
	// writing past the output limit would.
	overflow bool
}

// fakeRunner is a Runner that runs nothing: it answers each run from a script keyed
// by the run's standard input (a case's .in file), so the judge's verdicts and scoring
// can be tested without root, a sandbox or a toolchain. A status left empty is OK.
type fakeRunner struct {
	script map[string]fakeRun
	// compile, when set, answers the runs that keep their writes (compiles).
	compile func(Spec) (Result, error)

	mu   sync.Mutex
	runs int
}

// WorkDir implements Runner.
func (f *fakeRunner) WorkDir() string { return "/box" }

func (f *fakeRunner) Hides(string) string { return "" }

// Run implements Runner.
func (f *fakeRunner) Run(ctx context.Context, s Spec) (Result, error) {
	f.mu.Lock()
	f.runs++
	f.mu.Unlock()
	if s.OnStart != nil {
		defer s.OnStart()
	}
	if s.KeepWrites && f.compile != nil {
		return f.compile(s)
	}
	var in []byte
	if s.Stdin != nil {
		var err error
		if in, err = io.ReadAll(s.Stdin); err != nil {
			return Result{Status: StatusSE, Error: err.Error()}, fmt.Errorf("fake runner: stdin: %w", err)
		}
	}
	run, ok := f.script[string(in)]
	if !ok {
		err := fmt.Errorf("fake runner: no script for input %q", in)
		return Result{Status: StatusSE, Error: err.Error()}, err
	}
	out := run.stdout
	if run.overflow {
		out = strings.Repeat("x", int(s.OutputBytes)+1)
	}
	for _, w := range []struct {
		f    *os.File
		data string
	}{{s.Stdout, out}, {s.Stderr, run.stderr}} {
		if err := write(w.f, w.data); err != nil {
			return Result{Status: StatusSE, Error: err.Error()}, err
		}
	}
	res := run.res
	if res.Status == "" {
		res.Status = StatusOK
	}
	return res, nil
}

// write gives data to a run's output, which may be a file or a pipe the judge reads
// (and may stop reading once past the output limit: a refused write is then what the
// program would have seen, not a failure of the run).
func write(f *os.File, data string) error {
	if f == nil || data == "" {
		return nil
	}
	_ = f.SetWriteDeadline(time.Now().Add(10 * time.Second)) // a file has none
	_, err := f.WriteString(data)
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, syscall.EPIPE) {
		return fmt.Errorf("fake runner: output: %w", err)
	}
	return nil
}

// fakeLanguages has one language whose run needs nothing on the host: "./main" in
// the work dir, never compiled (the fake runner answers in its place).
const fakeLanguages = `languages:
  - id: fake
    name: Fake
    source_file: main
    run: [./main]
    lane: light
    time_factor: 1
    memory_factor: 1
    processes: 1
    oom_marker: "fake: out of memory"
  - id: fakec
    name: Fake compiled
    source_file: main.c
    compile: [cc, main.c]
    run: [./main]
    lane: heavy
    time_factor: 1
    memory_factor: 1
    processes: 1
`

// fakeJudge returns a judge that runs everything through fr, with its own store under
// a temporary directory; no root, no tmpfs, no background builds.
func fakeJudge(t *testing.T, fr *fakeRunner) (*Judge, objstore.Store) {
	t.Helper()
	dir := t.TempDir()
	langs := filepath.Join(dir, "languages.yaml")
	if err := os.WriteFile(langs, []byte(fakeLanguages), 0o644); err != nil {
		t.Fatal(err)
	}
	store, err := objstore.NewFS(filepath.Join(dir, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.WorkDir = filepath.Join(dir, "work")
	cfg.LanguagesFile = langs
	cfg.Cache = cache.Config{Dir: filepath.Join(dir, "cache"), BudgetBytes: 1 << 30, FetchTimeout: time.Minute}
	cfg.PrecompiledHeaders = false
	cfg.StoreArtefacts = false
	cfg.TasksTmpfsBytes = 0
	cfg.OutputLimitMB = 1
	j, err := New(cfg, fr, store, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j, store
}

// judgeFake judges a submission of the fake language on a package built from files.
func judgeFake(t *testing.T, j *Judge, store objstore.Store, files map[string]string) job.Outcome {
	t.Helper()
	return judgeFakeCtx(t, context.Background(), j, store, files)
}

// judgeFakeCtx is judgeFake under ctx (which may carry a progress function).
func judgeFakeCtx(t *testing.T, ctx context.Context, j *Judge, store objstore.Store, files map[string]string) job.Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	sha, err := objstore.PutProblem(ctx, store, problemtest.Zip(files))
	if err != nil {
		t.Fatal(err)
	}
	out, err := j.Judge(ctx, job.Task{SubmissionID: fmt.Sprintf("fake-%d", seq.Add(1)), Attempt: 1,
		ProblemSHA256: sha, Language: "fake", Source: "scripted"})
	if err != nil {
		t.Fatalf("judge: %v", err)
	}
	return out
}
