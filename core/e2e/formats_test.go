package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"oj/core/api/client"
	"oj/core/build"
	"oj/core/judge/problem/problemtest"
	"oj/core/wire"
)

// withBuilds serves the API over s with a build server answering from s's judge.
func withBuilds(t *testing.T, s *system) *client.Client {
	t.Helper()
	bs := build.NewServer(s.streams.Client(), s.streams.Keys, s.judge, "e2e-builder", 2, testLog())
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = bs.Run(ctx) }()
	t.Cleanup(func() { stop(); <-done })
	return apiOn(t, s, build.NewClient(s.streams.Client(), s.streams.Keys, 3*time.Minute))
}

// verify starts a verification of problem id and waits for its table.
func verify(t *testing.T, c *client.Client, id string, within time.Duration) *wire.Verification {
	t.Helper()
	ctx := context.Background()
	started, err := c.VerifyProblem(ctx, id, false)
	if err != nil {
		t.Fatalf("verify %s: %v", id, err)
	}
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		v, err := c.Verification(ctx, id)
		if err != nil {
			t.Fatalf("verification of %s: %v", id, err)
		}
		if v.ID == started.VerificationID && v.State != "running" {
			return v
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("verification of %s not done in %s", id, within)
	return nil
}

// table renders a verification for the test log (and the reports made from it).
func table(v *wire.Verification) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s v%d: %s — limit %d ms (derived %v, ran with %d ms), slowest accepted %d ms (%s), margin %.2f×\n",
		v.ProblemID, v.Version, v.Summary, v.LimitMS, v.Derived, v.RunLimitMS, v.SlowestACMS, v.SlowestACSource, v.Margin)
	for _, r := range v.Rows {
		fmt.Fprintf(&b, "  %-58s %-8s expect %-14s got %-4s run %-4s %6d / %6d ms  %-14s %s\n", r.Source, r.Language,
			strings.Join(r.Expect, "|"), r.Got, r.Run, r.TimeMS, r.LimitMS, r.Status, r.Note)
	}
	for _, p := range v.Problems {
		fmt.Fprintf(&b, "  problem: %s\n", p)
	}
	return b.String()
}

// TestVerifyOwnPackage: a package of our own in the Kattis format, pushed through the API
// with no time limit: its Kattis validator is built at upload, its labeled submissions
// are judged as verification submissions (out of the problem's statistics), the limit is
// derived from the accepted ones and becomes the version's, and each gets its label.
func TestVerifyOwnPackage(t *testing.T) {
	s := newSystem(t, 2)
	admin := withBuilds(t, s)
	files := map[string]string{
		"problem.yaml":             "problem_format_version: 2025-09\nname: Sum\nuuid: x\nlimits:\n  time_multipliers: {ac_to_time_limit: 2, time_limit_to_tle: 1.5}\n  time_resolution: 0.5\n",
		"data/sample/1.in":         "1 2\n",
		"data/sample/1.ans":        "3\n",
		"data/secret/1.in":         "20 22\n",
		"data/secret/1.ans":        "42\n",
		"output_validator/check.c": sumValidator,
		"statement/problem.en.md":  "Add two numbers.\n",
		"submissions/accepted/Sum.java": "import java.util.*;\npublic class Sum { public static void main(String[] a) {\n" +
			"  Scanner s = new Scanner(System.in); System.out.println(s.nextLong() + s.nextLong()); } }\n",
		"submissions/accepted/sum.py":            "a, b = map(int, input().split())\nprint(a + b)\n",
		"submissions/wrong_answer/off.c":         "#include <stdio.h>\nint main(void){long long a,b;scanf(\"%lld %lld\",&a,&b);printf(\"%lld\\n\",a+b+1);return 0;}\n",
		"submissions/time_limit_exceeded/spin.c": "int main(void){volatile unsigned long n=0;for(;;)n++;}\n",
		"submissions/run_time_error/crash.c":     "int main(void){int *p=0;return *p;}\n",
		"submissions/accepted/sum.hs":            "main = interact $ show . sum . map read . words\n",
		// Common Lisp is a Kattis language oj does not run: its row is "not run".
		"submissions/accepted/sum.lisp": "(print (+ (read) (read)))\n",
	}
	p, err := admin.PutProblem(context.Background(), "sum", bytes.NewReader(problemtest.Zip(files)))
	if err != nil {
		t.Fatal(err)
	}
	if p.Format != "kattis" || p.FormatVersion != "2025-09" || !p.TimeLimitProvisional || p.LabeledSubmissions != 7 || p.Import == nil ||
		len(p.Statements) != 1 || p.Checker != "kattis" {
		t.Fatalf("pushed: %+v", p)
	}
	v := verify(t, admin, "sum", 8*time.Minute)
	t.Log("\n" + table(v))
	if v.State != "passed" || !v.Derived || v.LimitMS%500 != 0 || v.AsLabeled != 6 || v.NotRun != 1 {
		t.Fatalf("verification: %s", table(v))
	}
	got, err := admin.Problem(context.Background(), "sum")
	if err != nil || got.TimeLimitProvisional || got.TimeLimitMS != v.LimitMS || got.Verify == nil || got.Verify.State != "passed" {
		t.Fatalf("after verify: %+v %v", got, err)
	}
	list, err := admin.Problems(context.Background(), "all")
	if err != nil || len(list.Items) != 1 || list.Items[0].Submissions != 0 {
		t.Fatalf("verification submissions counted for the problem: %+v %v", list, err)
	}
}

const sumValidator = `#include <stdio.h>
int main(int argc, char **argv) {
	FILE *ans = fopen(argv[2], "r");
	long long want, got;
	if (!ans || fscanf(ans, "%lld", &want) != 1) return 1;
	if (scanf("%lld", &got) != 1 || got != want) {
		char p[4096];
		snprintf(p, sizeof p, "%sjudgemessage.txt", argv[3]);
		FILE *j = fopen(p, "w");
		if (j) fprintf(j, "expected %lld\n", want);
		return 43;
	}
	return 42;
}
`

// judgehostOnly are labeled submissions of the real packages that test the judge host
// they were written for, not the problem: no other judge can run them as labeled.
var judgehostOnly = map[string]string{
	"kattis/fltcmp/submissions/accepted/fltcmp-test-write-files-between-testcases.R": "DOMjudge's own test of its judgehost: " +
		"it prints a complaint (a wrong answer) unless TMPDIR is DOMjudge's /testcaseNNNNN/write_tmp",
	"kattis/fltcmp/submissions/accepted/fltcmp-test-write-files-between-submissions.R": "the same test, linked to run twice",
}

// TestSharedPackagesVerify pushes every real package of ../shared/problems through the
// API and verifies it, logging each verification's table. hangman is refused
// (multi-pass). A label that is legitimately ambiguous on this machine is reported as
// such with its times; no submission may be judged against its label.
func TestSharedPackagesVerify(t *testing.T) {
	root := problemtest.SharedProblems()
	if root == "" {
		t.Skip("../shared/problems is absent (real Kattis and Polygon packages, kept beside the repository): nothing to verify")
	}
	s := newSystem(t, 2)
	admin := withBuilds(t, s)
	for _, dir := range []string{"kattis/hello", "kattis/fltcmp", "kattis/different", "kattis/guess", "kattis/oddecho",
		"polygon/abs-problem-bfs", "polygon/smallest-amount", "kattis/hangman"} {
		t.Run(dir, func(t *testing.T) {
			body, err := problemtest.ZipDir(filepath.Join(root, dir))
			if err != nil {
				t.Fatal(err)
			}
			id := strings.ReplaceAll(filepath.Base(dir), "_", "-")
			p, err := admin.PutProblem(context.Background(), id, bytes.NewReader(body))
			if dir == "kattis/hangman" {
				if err == nil || !strings.Contains(err.Error(), "multi-pass") {
					t.Fatalf("hangman: %v, want it refused as multi-pass", err)
				}
				t.Logf("refused: %v", err)
				return
			}
			if err != nil {
				t.Fatalf("push: %v", err)
			}
			t.Logf("pushed %s: %s %s, %d cases, checker %s, limit %d ms (provisional %v), %d labeled submissions",
				id, p.Format, p.FormatVersion, p.CaseCount, p.Checker, p.TimeLimitMS, p.TimeLimitProvisional, p.LabeledSubmissions)
			v := verify(t, admin, id, 25*time.Minute)
			t.Log("\n" + table(v))
			for _, r := range v.Rows {
				if r.Status != "not_as_labeled" {
					continue
				}
				if why, ok := judgehostOnly[dir+"/"+r.Source]; ok {
					t.Logf("%s: %s got %s, not as labeled: %s", id, r.Source, r.Got, why)
					continue
				}
				t.Errorf("%s: %s (%s) expected %v, got %s", id, r.Source, r.Language, r.Expect, r.Got)
			}
		})
	}
}
