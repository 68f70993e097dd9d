package judge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/judge/cache"
	"oj/core/judge/objstore"
	"oj/sandbox"
)

// The tests judge for real: a sandbox pool, real compilers. Everything lives under
// testRoot (outside /tmp, which the sandbox hides behind its own).
var (
	testPool  *sandbox.Pool
	testRoot  string
	testStore objstore.Store
	testJudge *Judge
	skipWhy   string
	seq       atomic.Int64
)

func TestMain(m *testing.M) {
	sandbox.MaybeRunChild()
	if os.Getenv(hostBuildHelper) != "" {
		// TestHostBuildDiesWithItsWorker's stand-in for a worker: a build on the host
		// that leaves a process behind, and no end of its own.
		out, err := runOnHost(context.Background(), "", nil, []string{"/bin/sh", "-c", "sleep 300 & sleep 300"})
		fmt.Printf("the host build ended: %v %s\n", err, out)
		os.Exit(1)
	}
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	if os.Geteuid() != 0 {
		skipWhy = "judge tests need root (the sandbox creates namespaces and cgroups)"
		return m.Run()
	}
	var err error
	testRoot, err = os.MkdirTemp("/var/tmp", "oj-judge-test-")
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer os.RemoveAll(testRoot)
	os.Chmod(testRoot, 0o755)
	scfg := sandbox.DefaultConfig()
	scfg.PoolSize = 4
	scfg.CgroupParent = "oj-judge-test"
	testPool, err = sandbox.NewPool(scfg)
	if err != nil {
		fmt.Println("sandbox:", err)
		return 1
	}
	defer testPool.Close()
	if testStore, err = objstore.NewFS(filepath.Join(testRoot, "objects")); err != nil {
		fmt.Println(err)
		return 1
	}
	if testJudge, err = newTestJudge(testStore, "main"); err != nil {
		fmt.Println(err)
		return 1
	}
	defer testJudge.Close()
	// Three precompiled headers (C++17, 20, 23) and Go's build cache: minutes on a
	// loaded host.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := testJudge.WaitReady(ctx); err != nil {
		fmt.Println(err)
		return 1
	}
	// The worker's self-check: each language's version command in the sandbox (one that
	// fails there leaves its language unavailable, as on a worker).
	vctx, vcancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer vcancel()
	for _, m := range testJudge.DetectVersions(vctx) {
		fmt.Println("judge tests: language unavailable:", m)
	}
	return m.Run()
}

func newTestJudge(store objstore.Store, name string) (*Judge, error) {
	return newTestJudgeWith(store, name, nil)
}

// newTestJudgeWith is newTestJudge with its configuration adjusted by adjust.
func newTestJudgeWith(store objstore.Store, name string, adjust func(*Config)) (*Judge, error) {
	cfg := DefaultConfig()
	cfg.WorkDir = filepath.Join(testRoot, name, "work")
	cfg.Cache = cache.Config{Dir: filepath.Join(testRoot, name, "cache"), BudgetBytes: 1 << 30, FetchTimeout: time.Minute}
	if adjust != nil {
		adjust(&cfg)
	}
	return New(cfg, SandboxRunner{Pool: testPool}, store, nil)
}

func needSandbox(t testing.TB) {
	t.Helper()
	if skipWhy != "" {
		t.Skip(skipWhy)
	}
}

// putProblem stores a package built from files and returns its sha256.
func putProblem(t testing.TB, files map[string]string) string {
	t.Helper()
	sha, err := objstore.PutProblem(context.Background(), testStore, zipOf(files))
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

func readSource(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", path))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func judgeWith(t testing.TB, j *Judge, sha, language, source string) job.Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	id := fmt.Sprintf("s%d", seq.Add(1))
	// A run the host held up past sandbox.max_stall is no verdict: the worker judges
	// it again (a later attempt), and so does the test, a bounded number of times, so
	// that a sandbox that always gives up still fails here.
	const attempts = 3
	for attempt := 1; ; attempt++ {
		out, err := j.Judge(ctx, job.Task{SubmissionID: id, ProblemSHA256: sha,
			Language: language, Source: source, Attempt: attempt})
		if err != nil && IsHostBusy(err) && attempt < attempts {
			t.Logf("attempt %d: %v; judging again, as the worker would", attempt, err)
			continue
		}
		if err != nil {
			t.Fatalf("judge (attempt %d): %v", attempt, err)
		}
		return out
	}
}
