package judge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/judge/cache"
	"oj/core/judge/objstore"
	"oj/core/judge/problem/problemtest"
)

// The tests' stand-in for testlib.h: a header of our own that the checker includes.
const (
	judgeLibH = "#pragma once\ninline int judgelib_verdict() { return 0; }\n"
	libCheck  = "#include \"judgelib.h\"\nint main() { return judgelib_verdict(); }\n"
)

func libProblem(extra map[string]string) map[string]string {
	files := map[string]string{
		"problem.yaml": "title: Lib\nchecker: {type: testlib, source: checker.cpp}\n",
		"checker.cpp":  libCheck,
	}
	for k, v := range extra {
		files[k] = v
	}
	return problemtest.Cases(files, [2]string{"1\n", "1\n"})
}

// toolJudge is a judge of its own (no precompiled headers, so it is quick to start),
// adjusted by tweak.
func toolJudge(t *testing.T, name string, tweak func(*Config)) *Judge {
	t.Helper()
	cfg := DefaultConfig()
	cfg.WorkDir = filepath.Join(testRoot, name, "work")
	cfg.Cache = cache.Config{Dir: filepath.Join(testRoot, name, "cache"), BudgetBytes: 1 << 30, FetchTimeout: time.Minute}
	cfg.PrecompiledHeaders = false
	if tweak != nil {
		tweak(&cfg)
	}
	j, err := New(cfg, SandboxRunner{Pool: testPool}, testStore, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

func TestToolHeaders(t *testing.T) {
	needSandbox(t)
	ctx := context.Background()
	t.Run("a header at the package's top level is found", func(t *testing.T) {
		sha := putProblem(t, libProblem(map[string]string{"judgelib.h": judgeLibH}))
		if out := judgeWith(t, testJudge, sha, "python3", "print(1)\n"); out.Verdict != job.VerdictAC {
			t.Fatalf("verdict %s, want AC; %+v", out.Verdict, out.Cases)
		}
	})
	sha := putProblem(t, libProblem(nil))
	t.Run("without the header the checker does not compile, for good", func(t *testing.T) {
		err := testJudge.BuildTools(ctx, sha)
		tc, ok := AsToolCompileError(err)
		if !IsPermanent(err) || !ok || !strings.Contains(tc.Output, "judgelib.h") {
			t.Fatalf("err = %v, want a permanent compile error about judgelib.h", err)
		}
	})
	t.Run("judge.tool_include_dirs provides it", func(t *testing.T) {
		inc := filepath.Join(testRoot, "include")
		if err := os.MkdirAll(inc, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(inc, "judgelib.h"), []byte(judgeLibH), 0o644); err != nil {
			t.Fatal(err)
		}
		j := toolJudge(t, "include", func(c *Config) { c.ToolIncludeDirs = []string{inc} })
		if err := j.BuildTools(ctx, sha); err != nil {
			t.Fatalf("build: %v", err)
		}
		bin := filepath.Join(j.cfg.Cache.Dir, sha, ".build", "checker.cpp.bin")
		if _, err := os.Stat(bin); err != nil {
			t.Fatalf("the built checker is not kept in the cache: %v", err)
		}
		if out := judgeWith(t, j, sha, "python3", "print(1)\n"); out.Verdict != job.VerdictAC {
			t.Fatalf("verdict %s, want AC; %+v", out.Verdict, out.Cases)
		}
	})
	t.Run("an include dir the host lacks stops the judge at start", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.WorkDir = filepath.Join(testRoot, "noinc", "work")
		cfg.ToolIncludeDirs = []string{filepath.Join(testRoot, "no-such-dir")}
		_, err := New(cfg, SandboxRunner{Pool: testPool}, testStore, nil)
		if err == nil || !strings.Contains(err.Error(), "judge.tool_include_dirs") {
			t.Fatalf("err = %v, want one naming judge.tool_include_dirs", err)
		}
	})
}

// A tool compile cut short by its time limit while judging (as on a loaded host: the
// tool compiled within its bounds at upload) is tried again and then reported as an
// error to retry, never as a broken package (and so never as SE). At upload the same cut
// is the answer, naming the bound: the upload waits for one.
func TestToolCompileCutShortIsRetryable(t *testing.T) {
	needSandbox(t)
	defer func(d time.Duration) { toolBuildBackoff = d }(toolBuildBackoff)
	toolBuildBackoff = 10 * time.Millisecond
	j := toolJudge(t, "tight", func(c *Config) { c.ToolCompile.CPU, c.ToolCompile.Wall = time.Millisecond, time.Minute })
	sha := putProblem(t, libProblem(map[string]string{"judgelib.h": judgeLibH}))
	_, err := j.Judge(context.Background(), job.Task{SubmissionID: "tight", ProblemSHA256: sha, Language: "python3",
		Source: "print(1)\n", Attempt: 1})
	if err == nil || IsPermanent(err) || !strings.Contains(err.Error(), "3 tries") || !strings.Contains(err.Error(), "time limit") {
		t.Fatalf("judge err = %v, want a retryable error after 3 tries on the time limit", err)
	}
	err = j.BuildTools(context.Background(), sha)
	tt, ok := AsToolTimeoutError(err)
	if !IsPermanent(err) || !ok || tt.Source != "checker.cpp" || !strings.HasPrefix(tt.Key, "judge.tool_compile.") {
		t.Fatalf("build err = %v, want a permanent ToolTimeoutError naming judge.tool_compile", err)
	}
}

// blockingChecker does not compile in any time: the compiler reads its own standard
// output, a pipe to the worker that nothing ever writes to.
const blockingChecker = "#include \"/dev/stdout\"\nint main() { return 0; }\n"

// A checker whose compile blocks is cut at upload by judge.tool_compile.wall, once (a
// retry could never end otherwise), and the answer says so; with less of the upload's
// deadline left than that bound, the deadline cuts it and the answer names it instead.
func TestToolCompileThatBlocksIsCutAtItsBound(t *testing.T) {
	needSandbox(t)
	j := toolJudge(t, "blocking", func(c *Config) { c.ToolCompile.CPU, c.ToolCompile.Wall = time.Second, 2*time.Second })
	sha := putProblem(t, libProblem(map[string]string{"checker.cpp": blockingChecker}))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	err := j.BuildTools(ctx, sha)
	tt, ok := AsToolTimeoutError(err)
	if !IsPermanent(err) || !ok || tt.Key != KeyToolCompileWall || tt.Bound != 2*time.Second ||
		!strings.Contains(err.Error(), "checker.cpp: the compile did not finish within judge.tool_compile.wall (2s)") {
		t.Fatalf("err = %v, want a permanent cut at judge.tool_compile.wall (2s)", err)
	}

	long := toolJudge(t, "blocking-deadline", func(c *Config) { c.ToolCompile.Wall = 10 * time.Minute })
	ctx, cancel = context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	err = long.BuildTools(ctx, sha)
	tt, ok = AsToolTimeoutError(err)
	if !IsPermanent(err) || !ok || tt.Key != KeyToolBuildTimeout ||
		!strings.Contains(err.Error(), "checker.cpp: the compile did not finish within what was left of api.tool_build_timeout (") {
		t.Fatalf("err = %v, want a permanent cut at what was left of api.tool_build_timeout", err)
	}
}

// A source's name reaches the compiler as a path: a name that a compiler would read as
// an option (the package refuses it; this is the second line of defence) is still
// compiled as the file it is.
func TestToolSourceReachesTheCompilerAsAPath(t *testing.T) {
	needSandbox(t)
	sha := putProblem(t, libProblem(map[string]string{"judgelib.h": judgeLibH}))
	ent, err := testJudge.acquire(context.Background(), sha)
	if err != nil {
		t.Fatal(err)
	}
	defer ent.Release()
	const name = "-print-prog-name=x.cpp"
	if err := os.WriteFile(filepath.Join(ent.Dir, name), []byte(libCheck), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(filepath.Join(ent.Dir, name))
	l, err := testJudge.toolLanguage(name)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "checker.bin")
	if err := testJudge.compileTool(context.Background(), l, ent, testJudge.tasksDir(), "checker", name, "main", bin, 0); err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	if st, err := os.Stat(bin); err != nil || st.Size() == 0 {
		t.Fatalf("no binary built from %s: %v", name, err)
	}
}

func TestBrokenPackageIsPermanent(t *testing.T) {
	needSandbox(t)
	sha, err := objstore.PutProblem(context.Background(), testStore, []byte("not a zip at all"))
	if err != nil {
		t.Fatal(err)
	}
	if err := testJudge.BuildTools(context.Background(), sha); !IsPermanent(err) {
		t.Fatalf("build err = %v, want permanent", err)
	}
	_, err = testJudge.Judge(context.Background(), job.Task{SubmissionID: "garbage", ProblemSHA256: sha,
		Language: "python3", Source: "print(1)\n", Attempt: 1})
	if !IsPermanent(err) {
		t.Fatalf("judge err = %v, want permanent", err)
	}
	missing := objstore.SHA256Hex([]byte("never stored"))
	if err := testJudge.BuildTools(context.Background(), missing); err == nil || IsPermanent(err) {
		t.Fatalf("a package missing from the store: err = %v, want an error to retry", err)
	}
}
