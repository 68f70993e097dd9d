package judge

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/judge/cache"
	"oj/core/judge/objstore"
	"oj/core/judge/problem/problemtest"
	"oj/sandbox"
)

func zipOf(files map[string]string) []byte { return problemtest.Zip(files) }

func withFiles(files map[string]string, extra map[string]string) map[string]string {
	for k, v := range extra {
		files[k] = v
	}
	return files
}

// aplusb is the corpus problem: two cases, 500 ms, 64 MiB.
func aplusb(checker string) map[string]string {
	return problemtest.Cases(map[string]string{
		"problem.yaml": "title: A+B\ntime_limit_ms: 500\nmemory_limit_mb: 64\nchecker: {type: " + checker + "}\n",
	}, [2]string{"1 2\n", "3\n"}, [2]string{"1000000000 2000000000\n", "3000000000\n"})
}

var extOf = map[string]string{"c11": "c", "cpp17": "cpp", "python3": "py", "go": "go", "java17": "java", "rust": "rs"}

// TestCorpus judges every language's corpus against the expected verdicts.
func TestCorpus(t *testing.T) {
	needSandbox(t)
	lines := putProblem(t, aplusb("lines"))
	exact := putProblem(t, aplusb("exact"))
	type want struct {
		prog    string
		sha     string
		verdict job.Verdict
	}
	wants := []want{
		{"ac", lines, job.VerdictAC},
		{"wa", lines, job.VerdictWA},
		{"pe", exact, job.VerdictPE},
		{"pe", lines, job.VerdictAC},
		{"tle", lines, job.VerdictTLE},
		{"mle", lines, job.VerdictMLE},
		{"segv", lines, job.VerdictRE},
		{"exit", lines, job.VerdictRE},
		{"ce", lines, job.VerdictCE},
		{"ole", lines, job.VerdictOLE},
	}
	for _, language := range []string{"c11", "cpp17", "python3", "go", "java17", "rust"} {
		t.Run(language, func(t *testing.T) {
			t.Parallel()
			if !testJudge.Supports(language) {
				t.Skipf("toolchain missing: %v", testJudge.Unavailable())
			}
			for _, w := range wants {
				name := w.prog
				if w.sha == exact {
					name += "_under_exact"
				}
				t.Run(name, func(t *testing.T) {
					src := readSource(t, filepath.Join("corpus", language, w.prog+"."+extOf[language]))
					out := judgeWith(t, testJudge, w.sha, language, src)
					if out.Verdict != w.verdict {
						t.Fatalf("verdict %s, want %s; cases %+v; compile output %q", out.Verdict, w.verdict, out.Cases, out.CompileOutput)
					}
					switch w.verdict {
					case job.VerdictAC:
						if out.Score != 100 || len(out.Cases) != 2 {
							t.Fatalf("AC with score %v, %d cases", out.Score, len(out.Cases))
						}
					case job.VerdictCE:
						if strings.TrimSpace(out.CompileOutput) == "" || len(out.Cases) != 0 {
							t.Fatalf("CE without the compiler's message (%q) or with cases", out.CompileOutput)
						}
					default:
						if out.Score != 0 || len(out.Cases) != 2 {
							t.Fatalf("%s with score %v, %d cases", w.verdict, out.Score, len(out.Cases))
						}
					}
				})
			}
		})
	}
}

func TestFloatChecker(t *testing.T) {
	needSandbox(t)
	sha := putProblem(t, problemtest.Cases(map[string]string{
		"problem.yaml": "title: Divide\nchecker: {type: float, epsilon: 1e-6}\n",
	}, [2]string{"1 3\n", "0.333333333333\n"}, [2]string{"22 7\n", "3.142857142857\n"}))
	if out := judgeWith(t, testJudge, sha, "python3", readSource(t, "problems/divide.py")); out.Verdict != job.VerdictAC {
		t.Fatalf("precise answer: %s %+v", out.Verdict, out.Cases)
	}
	if out := judgeWith(t, testJudge, sha, "python3", readSource(t, "problems/divide_rounded.py")); out.Verdict != job.VerdictWA {
		t.Fatalf("rounded answer: %s %+v", out.Verdict, out.Cases)
	}
}

func TestSubtasksScorePartially(t *testing.T) {
	needSandbox(t)
	sha := putProblem(t, problemtest.Cases(map[string]string{
		"problem.yaml": "title: A+B subtasks\nsubtasks:\n  - {score: 30, cases: [1, 2]}\n  - {score: 70, cases: [3, 4]}\n",
	}, [2]string{"1 2\n", "3\n"}, [2]string{"5 6\n", "11\n"}, [2]string{"1000 2000\n", "3000\n"}, [2]string{"5 999\n", "1004\n"}))
	out := judgeWith(t, testJudge, sha, "cpp17", readSource(t, "problems/small_only.cpp"))
	if out.Verdict != job.VerdictWA || out.Score != 30 {
		t.Fatalf("verdict %s score %v, want WA 30; %+v", out.Verdict, out.Score, out.Cases)
	}
	for _, c := range out.Cases {
		wantSub := 1
		if c.Index > 2 {
			wantSub = 2
		}
		if c.Subtask != wantSub {
			t.Errorf("case %d in subtask %d", c.Index, c.Subtask)
		}
	}
	out = judgeWith(t, testJudge, sha, "cpp17", readSource(t, "corpus/cpp17/ac.cpp"))
	if out.Verdict != job.VerdictAC || out.Score != 100 {
		t.Fatalf("AC: %s %v", out.Verdict, out.Score)
	}
}

// TestProgressReportsCarryTheFinalSubtask: each case's progress report (what the SSE
// `case` events carry while a submission runs) numbers its subtask as the final result
// does, not 0 until scoring.
func TestProgressReportsCarryTheFinalSubtask(t *testing.T) {
	needSandbox(t)
	sha := putProblem(t, problemtest.Cases(map[string]string{
		"problem.yaml": "title: A+B subtasks\nsubtasks:\n  - {score: 30, cases: [1, 2]}\n  - {score: 70, cases: [3]}\n",
	}, [2]string{"1 2\n", "3\n"}, [2]string{"5 6\n", "11\n"}, [2]string{"1000 2000\n", "3000\n"}))
	var reported []job.CaseResult
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ctx = job.WithProgress(ctx, func(c job.CaseResult) { reported = append(reported, c) })
	out, err := testJudge.Judge(ctx, job.Task{SubmissionID: "progress-subtasks", ProblemSHA256: sha,
		Language: "cpp17", Source: readSource(t, "corpus/cpp17/ac.cpp"), Attempt: 1})
	if err != nil {
		t.Fatalf("judge: %v", err)
	}
	if len(reported) != len(out.Cases) {
		t.Fatalf("%d progress reports for %d cases", len(reported), len(out.Cases))
	}
	for i, c := range reported {
		if want := out.Cases[i].Subtask; c.Subtask != want || want == 0 {
			t.Errorf("case %d reported in subtask %d, the result says %d", c.Index, c.Subtask, want)
		}
	}
}

// A submission's cases share one wall budget (judge.submission_wall): a program that
// sleeps to its wall limit in every case stops being run once the budget is used, the
// remaining cases are skipped with the reason, and the verdict is TLE — however many
// cases the problem has. A slow but right program is TLE too: not every case was judged.
func TestSubmissionWallBudget(t *testing.T) {
	needSandbox(t)
	j, err := newTestJudgeWith(testStore, "budget", func(c *Config) { c.SubmissionWall = 2 * time.Second })
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var cases [][2]string
	for range 6 {
		cases = append(cases, [2]string{"1 2\n", "3\n"})
	}
	// 100 ms of CPU: each sleeping run ends at its wall limit, 100 ms × 3 + 1 s.
	sha := putProblem(t, problemtest.Cases(map[string]string{"problem.yaml": "title: Budget\ntime_limit_ms: 100\n"}, cases...))
	for _, tc := range []struct {
		name, src string
	}{
		{"sleeps to the wall limit", "#include <unistd.h>\nint main(void) { sleep(30); return 0; }\n"},
		{"slow but right", "#include <stdio.h>\n#include <unistd.h>\nint main(void) { usleep(900000); puts(\"3\"); return 0; }\n"},
	} {
		out := judgeWith(t, j, sha, "c11", tc.src)
		ran, skipped := 0, 0
		for _, c := range out.Cases {
			if c.Verdict == job.VerdictSK {
				skipped++
				if !strings.Contains(c.Message, "judge.submission_wall") {
					t.Errorf("%s: skipped case %d says %q", tc.name, c.Index, c.Message)
				}
				continue
			}
			ran++
		}
		if out.Verdict != job.VerdictTLE || skipped == 0 || ran > 4 || ran < 1 {
			t.Fatalf("%s: verdict %s, %d cases run and %d skipped, want TLE with the rest skipped: %+v", tc.name, out.Verdict, ran, skipped, out.Cases)
		}
	}
}

func divisorProblem(checker string) map[string]string {
	return problemtest.Cases(map[string]string{
		"problem.yaml": "title: Divisor\nchecker: {type: testlib, source: checker.cpp}\n",
		"checker.cpp":  checker,
	}, [2]string{"12\n", "2\n"}, [2]string{"35\n", "5\n"})
}

func TestTestlibChecker(t *testing.T) {
	needSandbox(t)
	sha := putProblem(t, divisorProblem(readSource(t, "problems/divisor_checker.cpp")))
	cases := []struct {
		name    string
		src     string
		verdict job.Verdict
		score   float64
	}{
		{"any divisor is AC", "n = int(input())\nprint(next(d for d in range(2, n + 1) if n % d == 0))\n", job.VerdictAC, 100},
		{"trivial divisor earns half", "input()\nprint(1)\n", job.VerdictPC, 50},
		{"non-divisor is WA", "input()\nprint(4 if False else 11)\n", job.VerdictWA, 0},
		{"no number is PE", "input()\nprint('none')\n", job.VerdictPE, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := judgeWith(t, testJudge, sha, "python3", c.src)
			if out.Verdict != c.verdict || out.Score != c.score {
				t.Fatalf("got %s %v, want %s %v; %+v", out.Verdict, out.Score, c.verdict, c.score, out.Cases)
			}
		})
	}
	t.Run("checker failure is SE", func(t *testing.T) {
		sha := putProblem(t, divisorProblem(readSource(t, "problems/failing_checker.cpp")))
		out := judgeWith(t, testJudge, sha, "python3", "input()\nprint(2)\n")
		if out.Verdict != job.VerdictSE || out.Score != 0 {
			t.Fatalf("got %s %v", out.Verdict, out.Score)
		}
	})
	t.Run("crashing checker is SE never AC", func(t *testing.T) {
		sha := putProblem(t, divisorProblem(readSource(t, "problems/crashing_checker.cpp")))
		out := judgeWith(t, testJudge, sha, "python3", "n = int(input())\nprint(n)\n")
		if out.Verdict != job.VerdictSE || out.Score != 0 {
			t.Fatalf("got %s %v", out.Verdict, out.Score)
		}
	})
	t.Run("checker that does not compile is a permanent error naming it", func(t *testing.T) {
		sha := putProblem(t, divisorProblem("int main( {"))
		_, err := testJudge.Judge(context.Background(), job.Task{SubmissionID: "broken-checker", ProblemSHA256: sha,
			Language: "python3", Source: "print(2)\n", Attempt: 1})
		tc, ok := AsToolCompileError(err)
		if !IsPermanent(err) || !ok || tc.Source != "checker.cpp" || tc.Kind != "checker" {
			t.Fatalf("err = %v, want a permanent ToolCompileError for checker.cpp", err)
		}
		if !strings.Contains(err.Error(), "checker.cpp:") || strings.Contains(err.Error(), "main.cpp") {
			t.Fatalf("the message should quote the compiler on checker.cpp, never main.cpp: %q", err)
		}
	})
}

func guessProblem(interactor string) map[string]string {
	return problemtest.Cases(map[string]string{
		"problem.yaml":   "title: Guess\ntime_limit_ms: 500\ninteractor: interactor.cpp\n",
		"interactor.cpp": interactor,
	}, [2]string{"500\n", "-\n"}, [2]string{"1\n", "-\n"}, [2]string{"777\n", "-\n"})
}

func TestInteractive(t *testing.T) {
	needSandbox(t)
	sha := putProblem(t, guessProblem(readSource(t, "problems/guess_interactor.cpp")))
	cases := []struct {
		name, src string
		verdict   job.Verdict
	}{
		{"binary search is AC", "problems/guess_ac.cpp", job.VerdictAC},
		{"too many guesses is WA", "problems/guess_linear.cpp", job.VerdictWA},
		{"never answering is TLE", "problems/guess_silent.cpp", job.VerdictTLE},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := judgeWith(t, testJudge, sha, "cpp17", readSource(t, c.src))
			if out.Verdict != c.verdict {
				t.Fatalf("got %s, want %s; %+v", out.Verdict, c.verdict, out.Cases)
			}
		})
	}
	t.Run("interactor crash is SE", func(t *testing.T) {
		t.Parallel()
		sha := putProblem(t, guessProblem(readSource(t, "problems/crashing_interactor.cpp")))
		out := judgeWith(t, testJudge, sha, "cpp17", readSource(t, "problems/guess_ac.cpp"))
		if out.Verdict != job.VerdictSE {
			t.Fatalf("got %s; %+v", out.Verdict, out.Cases)
		}
	})
}

func TestArtefactsStoredBounded(t *testing.T) {
	needSandbox(t)
	sha := putProblem(t, aplusb("lines"))
	ctx := context.Background()
	out, err := testJudge.Judge(ctx, job.Task{SubmissionID: "artefacts", Attempt: 2, ProblemSHA256: sha,
		Language: "cpp17", Source: readSource(t, "corpus/cpp17/ole.cpp")})
	if err != nil || out.Verdict != job.VerdictOLE {
		t.Fatalf("%v %v", out.Verdict, err)
	}
	rc, err := testStore.Get(ctx, objstore.RunKey("artefacts", 2, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	if len(b) > 8<<10 || !strings.Contains(string(b), `"verdict":"OLE"`) || !strings.Contains(string(b), "truncated") {
		t.Fatalf("cases.json (%d bytes): %.300s", len(b), b)
	}
	out, err = testJudge.Judge(ctx, job.Task{SubmissionID: "artefacts-ce", Attempt: 1, ProblemSHA256: sha,
		Language: "cpp17", Source: readSource(t, "corpus/cpp17/ce.cpp")})
	if err != nil || out.Verdict != job.VerdictCE {
		t.Fatalf("%v %v", out.Verdict, err)
	}
	if ok, err := testStore.Exists(ctx, objstore.RunKey("artefacts-ce", 1, "compile.log")); !ok || err != nil {
		t.Fatalf("compile log not stored: %v", err)
	}
}

// TestDecideLeavesArtefactsToKeep: Decide stores nothing (the worker frees its judging
// slot first); Keep stores what Judge would have.
func TestDecideLeavesArtefactsToKeep(t *testing.T) {
	needSandbox(t)
	sha := putProblem(t, aplusb("lines"))
	ctx := context.Background()
	key := objstore.RunKey("decide-ce", 1, objstore.CompileLogFile)
	d, err := testJudge.Decide(ctx, job.Task{SubmissionID: "decide-ce", Attempt: 1, ProblemSHA256: sha,
		Language: "cpp17", Source: readSource(t, "corpus/cpp17/ce.cpp")})
	if err != nil || d.Outcome.Verdict != job.VerdictCE || d.Keep == nil {
		t.Fatalf("%v %v (keep set: %v)", d.Outcome.Verdict, err, d.Keep != nil)
	}
	if ok, err := testStore.Exists(ctx, key); ok || err != nil {
		t.Fatalf("compile log stored before Keep (exists %v, err %v)", ok, err)
	}
	d.Keep(ctx)
	rc, err := testStore.Get(ctx, key)
	if err != nil {
		t.Fatalf("compile log not stored by Keep: %v", err)
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	if string(b) != d.Outcome.CompileOutput {
		t.Fatalf("compile log %q, outcome's compile output %q", b, d.Outcome.CompileOutput)
	}

	cfg := DefaultConfig()
	cfg.WorkDir = filepath.Join(testRoot, "no-artefacts", "work")
	cfg.Cache = cache.Config{Dir: filepath.Join(testRoot, "no-artefacts", "cache"), BudgetBytes: 1 << 30, FetchTimeout: time.Minute}
	cfg.StoreArtefacts, cfg.PrecompiledHeaders = false, false
	off, err := New(cfg, SandboxRunner{Pool: testPool}, testStore, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	d, err = off.Decide(ctx, job.Task{SubmissionID: "decide-off", Attempt: 1, ProblemSHA256: sha,
		Language: "python3", Source: readSource(t, "corpus/python3/ac.py")})
	if err != nil || d.Outcome.Verdict != job.VerdictAC || d.Keep != nil {
		t.Fatalf("store_artefacts off: %v %v, keep set: %v", d.Outcome.Verdict, err, d.Keep != nil)
	}
}

func TestUndecidableTasksAreErrors(t *testing.T) {
	needSandbox(t)
	ctx := context.Background()
	sha := putProblem(t, aplusb("lines"))
	if _, err := testJudge.Judge(ctx, job.Task{SubmissionID: "x", ProblemSHA256: sha, Language: "cobol", Source: "x"}); err == nil {
		t.Fatal("unknown language judged")
	}
	missing := objstore.SHA256Hex([]byte("no such package"))
	if _, err := testJudge.Judge(ctx, job.Task{SubmissionID: "x", ProblemSHA256: missing, Language: "cpp17", Source: "x"}); err == nil {
		t.Fatal("missing package judged")
	}
}

// A program that writes many files, each under the output limit, cannot fill the host's
// disk: its work dir is on the tasks tmpfs, so the files count against its memory limit.
func TestManyFilesCountAgainstMemory(t *testing.T) {
	needSandbox(t)
	sha := putProblem(t, aplusb("lines")) // 64 MiB
	src := `#include <stdio.h>
#include <string.h>
static char buf[1 << 20];
int main(void) {
	memset(buf, 'x', sizeof buf);
	char name[32];
	for (int f = 0; f < 64; f++) {          /* 64 files of 8 MiB: 512 MiB in all */
		snprintf(name, sizeof name, "fill-%d", f);
		FILE *o = fopen(name, "w");
		if (!o) return 3;
		for (int i = 0; i < 8; i++) fwrite(buf, 1, sizeof buf, o);
		fclose(o);
	}
	long long a, b;
	if (scanf("%lld %lld", &a, &b) != 2) return 4;
	printf("%lld\n", a + b);
	return 0;
}
`
	out := judgeWith(t, testJudge, sha, "c11", src)
	if out.Verdict != job.VerdictMLE {
		t.Fatalf("verdict %s (%+v), want MLE: the files were not charged to the run", out.Verdict, out.Cases)
	}
	entries, err := os.ReadDir(testJudge.tasksDir())
	if err != nil || len(entries) != 0 {
		t.Fatalf("task dirs left behind: %v %v", entries, err)
	}
}

// TestCasesDoNotSeeEachOther: in a one-slot pool (so every case of the submission runs
// in the same slot, right after the one before), a solution that leaves 40 MiB in its
// work dir and files in /tmp and /dev/shm finds none of it in the next case, and none
// of it stays charged: each case touches 40 MiB under a 64 MiB limit and passes.
func TestCasesDoNotSeeEachOther(t *testing.T) {
	needSandbox(t)
	scfg := sandbox.DefaultConfig()
	scfg.PoolSize = 1
	scfg.CgroupParent = "oj-judge-test"
	pool, err := sandbox.NewPool(scfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	cfg := DefaultConfig()
	cfg.WorkDir = filepath.Join(testRoot, "one-slot", "work")
	cfg.Cache = cache.Config{Dir: filepath.Join(testRoot, "one-slot", "cache"), BudgetBytes: 1 << 30, FetchTimeout: time.Minute}
	cfg.PrecompiledHeaders = false
	j, err := New(cfg, SandboxRunner{Pool: pool}, testStore, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	sha := putProblem(t, problemtest.APlusB("title: A+B\ntime_limit_ms: 1000\nmemory_limit_mb: 64\n"))
	out := judgeWith(t, j, sha, "c11", readSource(t, "isolation/leftover.c"))
	if out.Verdict != job.VerdictAC || len(out.Cases) != 3 {
		t.Fatalf("verdict %s, want AC on 3 cases; cases %+v; compile output %q", out.Verdict, out.Cases, out.CompileOutput)
	}
	for _, c := range out.Cases {
		if c.MemoryKB > 60<<10 {
			t.Errorf("case %d: %d KiB, want one case's own (about 41 MiB)", c.Index, c.MemoryKB)
		}
	}
}
