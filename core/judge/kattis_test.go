package judge

import (
	"context"
	"strings"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/judge/problem/problemtest"
)

// kattisSum is A+B checked by a Kattis validator (source, in a folder as Kattis
// packages keep them) with extra problem.yaml lines.
func kattisSum(t *testing.T, source, code, extra string) map[string]string {
	t.Helper()
	return problemtest.Cases(map[string]string{
		"problem.yaml":        "title: Sum\ntime_limit_ms: 1000\nchecker: {type: kattis, source: validator/" + source + "}\n" + extra,
		"validator/" + source: code,
	}, [2]string{"1 2\n", "3\n"}, [2]string{"20 22\n", "42\n"})
}

const (
	sumC      = "#include <stdio.h>\nint main(void) { long long a, b; scanf(\"%lld %lld\", &a, &b); printf(\"%lld\\n\", a + b); return 0; }\n"
	sumOffC   = "#include <stdio.h>\nint main(void) { long long a, b; scanf(\"%lld %lld\", &a, &b); printf(\"%lld\\n\", a + b + 1); return 0; }\n"
	sumPython = "a, b = map(int, input().split())\nprint(a + b)\n"
)

// TestKattisValidatorProtocol: exit 42 accepts, 43 rejects; teammessage.txt is the
// owner's message, judgemessage.txt the admins'.
func TestKattisValidatorProtocol(t *testing.T) {
	needSandbox(t)
	sha := putProblem(t, kattisSum(t, "validate.c", readSource(t, "kattis/sum_validator.c"), ""))
	out := judgeWith(t, testJudge, sha, "c11", sumC)
	if out.Verdict != job.VerdictAC || out.Score != 100 {
		t.Fatalf("right sum: %s %v %+v", out.Verdict, out.Score, out.Cases)
	}
	if !strings.Contains(out.Cases[0].CheckerMessage, "ok 3") {
		t.Fatalf("judge message of an accepted case: %q", out.Cases[0].CheckerMessage)
	}
	out = judgeWith(t, testJudge, sha, "c11", sumOffC)
	if out.Verdict != job.VerdictWA {
		t.Fatalf("wrong sum: %s %+v", out.Verdict, out.Cases)
	}
	c := out.Cases[0]
	if c.Message != "the sum is off" || !strings.Contains(c.CheckerMessage, "expected 3, found 4") {
		t.Fatalf("messages: owner %q, admins %q", c.Message, c.CheckerMessage)
	}
}

// TestKattisPythonValidator: a validator in Python, with arguments (checker.args) and
// a score of its own (score.txt) under scoring groups.
func TestKattisPythonValidator(t *testing.T) {
	needSandbox(t)
	sha := putProblem(t, kattisSum(t, "validate.py", readSource(t, "kattis/sum_validator.py"),
		"scoring: {aggregate: sum, on_reject: continue, cases: [1, 2]}\n"))
	out := judgeWith(t, testJudge, sha, "python3", sumPython)
	// score.txt gives each case the sum: 3 + 42, but only with the bonus argument.
	if out.Verdict != job.VerdictAC || out.Score != 2 {
		t.Fatalf("without bonus: %s %v %+v", out.Verdict, out.Score, out.Cases)
	}
	files := kattisSum(t, "validate.py", readSource(t, "kattis/sum_validator.py"), "scoring: {aggregate: sum, on_reject: continue, cases: [1, 2]}\n")
	files["problem.yaml"] = strings.Replace(files["problem.yaml"], "source: validator/validate.py}", "source: validator/validate.py, args: [bonus]}", 1)
	sha = putProblem(t, files)
	out = judgeWith(t, testJudge, sha, "python3", sumPython)
	if out.Verdict != job.VerdictAC || out.Score != 45 || out.Cases[1].Score != 42 {
		t.Fatalf("with bonus: %s %v %+v", out.Verdict, out.Score, out.Cases)
	}
	out = judgeWith(t, testJudge, sha, "python3", "print(0)\n")
	if out.Verdict != job.VerdictWA || out.Score != 0 || out.Cases[1].Message != "not the sum" {
		t.Fatalf("wrong: %s %v %+v", out.Verdict, out.Score, out.Cases)
	}
}

// TestKattisInteractiveValidator: the validator talks to the solution, with its
// feedback directory.
func TestKattisInteractiveValidator(t *testing.T) {
	needSandbox(t)
	sha := putProblem(t, problemtest.Cases(map[string]string{
		"problem.yaml":      "title: Guess\ntime_limit_ms: 1000\ninteractive: true\nchecker: {type: kattis, source: validator/guess.c}\n",
		"validator/guess.c": readSource(t, "kattis/guess_validator.c"),
	}, [2]string{"1\n", "\n"}, [2]string{"777\n", "\n"}, [2]string{"1000\n", "\n"}))
	out := judgeWith(t, testJudge, sha, "c11", readSource(t, "kattis/guess_solution.c"))
	if out.Verdict != job.VerdictAC {
		t.Fatalf("binary search: %s %+v", out.Verdict, out.Cases)
	}
	if !strings.Contains(out.Cases[1].CheckerMessage, "found 777 in") {
		t.Fatalf("judge message: %q", out.Cases[1].CheckerMessage)
	}
	out = judgeWith(t, testJudge, sha, "c11", readSource(t, "kattis/guess_linear.c"))
	if out.Verdict != job.VerdictWA || out.Cases[0].Verdict != job.VerdictAC || out.Cases[1].Verdict != job.VerdictWA {
		t.Fatalf("linear search: %s %+v", out.Verdict, out.Cases)
	}
	// Who ended first decides: a solution that crashes at once makes the validator read
	// end of file and reject, but the crash came first: RE. A validator that rejects
	// while the solution runs on gives WA, however the solution ends after.
	out = judgeWith(t, testJudge, sha, "c11", "int main(void) { return 42; }\n")
	if out.Verdict != job.VerdictRE {
		t.Fatalf("crash before any guess: %s %+v", out.Verdict, out.Cases)
	}
	out = judgeWith(t, testJudge, sha, "c11", "#include <stdio.h>\nint main(void) { puts(\"abc\"); fflush(stdout); for (;;); }\n")
	if out.Verdict != job.VerdictWA {
		t.Fatalf("rejected, then spins: %s %+v", out.Verdict, out.Cases)
	}
}

// TestScoringGroupOnRejectContinue: a group that continues after a rejection judges
// its other cases and sums what they score; a group that breaks skips the rest.
func TestScoringGroupOnRejectContinue(t *testing.T) {
	needSandbox(t)
	// The solution adds small numbers only: cases 1, 2 and 4 pass, 3 and 5 fail.
	yaml := "title: Groups\nchecker: {type: tokens}\nscoring:\n  aggregate: sum\n  on_reject: continue\n  range: [0, 100]\n  groups:\n" +
		"    - {name: cont, aggregate: sum, on_reject: continue, accept_score: 20, cases: [1, 2, 3]}\n" +
		"    - {name: brk, aggregate: sum, on_reject: break, accept_score: 20, cases: [4, 5]}\n"
	sha := putProblem(t, problemtest.Cases(map[string]string{"problem.yaml": yaml},
		[2]string{"1 2\n", "3\n"}, [2]string{"5 6\n", "11\n"}, [2]string{"1000 2000\n", "3000\n"},
		[2]string{"2 2\n", "4\n"}, [2]string{"4000 1\n", "4001\n"}))
	out := judgeWith(t, testJudge, sha, "cpp17", readSource(t, "problems/small_only.cpp"))
	want := []job.Verdict{job.VerdictAC, job.VerdictAC, job.VerdictWA, job.VerdictAC, job.VerdictWA}
	for i, c := range out.Cases {
		if c.Verdict != want[i] {
			t.Fatalf("case %d: %s, want %s; %+v", i+1, c.Verdict, want[i], out.Cases)
		}
	}
	if out.Score != 60 || out.Verdict != job.VerdictWA {
		t.Fatalf("score %v verdict %s, want 60 WA; %+v", out.Score, out.Verdict, out.Cases)
	}
	// With the first group stopping at its first rejection, case 3 fails first: the
	// group's later cases are skipped; with break on the root too, so is group brk.
	yaml = "title: Groups\nchecker: {type: tokens}\nscoring:\n  on_reject: break\n  groups:\n" +
		"    - {name: g1, accept_score: 10, cases: [1, 2]}\n    - {name: g2, accept_score: 10, cases: [3, 4, 5]}\n"
	sha = putProblem(t, problemtest.Cases(map[string]string{"problem.yaml": yaml},
		[2]string{"1 2\n", "3\n"}, [2]string{"5 6\n", "11\n"}, [2]string{"1000 2000\n", "3000\n"},
		[2]string{"2 2\n", "4\n"}, [2]string{"4000 1\n", "4001\n"}))
	out = judgeWith(t, testJudge, sha, "cpp17", readSource(t, "problems/small_only.cpp"))
	if out.Cases[3].Verdict != job.VerdictSK || out.Cases[4].Verdict != job.VerdictSK || out.Score != 20 || out.Verdict != job.VerdictWA {
		t.Fatalf("break: %s %v %+v", out.Verdict, out.Score, out.Cases)
	}
	if !strings.Contains(out.Cases[3].Message, "group g2 stops at its first rejection (case 3)") {
		t.Fatalf("skip message %q", out.Cases[3].Message)
	}
}

// TestKattisDefaultComparison: tokens compared up to case and floats within either
// tolerance, as the Kattis default validator's flags say.
func TestKattisDefaultComparison(t *testing.T) {
	needSandbox(t)
	sha := putProblem(t, problemtest.Cases(map[string]string{
		"problem.yaml": "title: Words\nchecker: {type: float, case_sensitive: false, absolute_tolerance: 0.01}\n",
	}, [2]string{"\n", "Possible 3.14\n"}))
	if out := judgeWith(t, testJudge, sha, "python3", "print('POSSIBLE', 3.1415)\n"); out.Verdict != job.VerdictAC {
		t.Fatalf("case and float: %s %+v", out.Verdict, out.Cases)
	}
	if out := judgeWith(t, testJudge, sha, "python3", "print('POSSIBLE', 3.2)\n"); out.Verdict != job.VerdictWA {
		t.Fatalf("out of tolerance: %s %+v", out.Verdict, out.Cases)
	}
}

// TestJavaAnyClassName: a public class of any name is compiled and run as that class.
func TestJavaAnyClassName(t *testing.T) {
	needSandbox(t)
	if !testJudge.Supports("java17") {
		t.Skip("no Java on this worker")
	}
	sha := putProblem(t, aplusb("lines"))
	src := "import java.util.Scanner;\n// public class NotThis {}\npublic class Different {\n" +
		"  public static void main(String[] args) {\n    Scanner sc = new Scanner(System.in);\n" +
		"    long a = sc.nextLong(), b = sc.nextLong();\n    System.out.println(a + b);\n  }\n}\n"
	if out := judgeWith(t, testJudge, sha, "java17", src); out.Verdict != job.VerdictAC {
		t.Fatalf("class Different: %s %+v %s", out.Verdict, out.Cases, out.CompileOutput)
	}
	pkg := "package contest.sol;\n" + strings.Replace(src, "Different", "Sol", 1)
	if out := judgeWith(t, testJudge, sha, "java17", pkg); out.Verdict != job.VerdictAC {
		t.Fatalf("class in a package: %s %+v %s", out.Verdict, out.Cases, out.CompileOutput)
	}
}

// TestHostileKattisValidators: a validator that loops, floods its feedback directory,
// plants a symlink there or exits 0 is the judge's error (SE) with the reason, never a
// verdict against the solution and never a retried system error.
func TestHostileKattisValidators(t *testing.T) {
	needSandbox(t)
	j := toolJudge(t, "hostile-validators", func(c *Config) {
		c.Checker.CPU, c.Checker.Wall, c.Checker.OutputMB = time.Second, 3*time.Second, 8
	})
	for _, c := range []struct {
		file, admins, owner string
	}{
		{"loop_validator.c", "validator crashed or exceeded its limits", "validator crashed or exceeded its limits"},
		{"flood_validator.c", "", "validator"},
		{"zero_validator.c", "validator exited 0", "validator exited 0 (a Kattis validator exits 42 or 43)"},
		{"link_validator.c", "judgemessage.txt is a link", "validator left unreadable feedback"},
	} {
		t.Run(c.file, func(t *testing.T) {
			sha := putProblem(t, kattisSum(t, "validate.c", readSource(t, "kattis/"+c.file), ""))
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			out, err := j.Judge(ctx, job.Task{SubmissionID: "hostile-" + c.file, ProblemSHA256: sha, Language: "c11", Source: sumC, Attempt: 1})
			if err != nil {
				t.Fatalf("judge error instead of a verdict: %v", err)
			}
			if out.Verdict != job.VerdictSE {
				t.Fatalf("verdict %s, want SE; %+v", out.Verdict, out.Cases)
			}
			cs := out.Cases[0]
			if cs.Verdict != job.VerdictSE || !strings.Contains(cs.Message, c.owner) || !strings.Contains(cs.CheckerMessage, c.admins) {
				t.Fatalf("case: %+v", cs)
			}
			if strings.Contains(cs.CheckerMessage, "root:") {
				t.Fatalf("a host file reached the message: %q", cs.CheckerMessage)
			}
		})
	}
}
