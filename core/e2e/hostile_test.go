package e2e_test

import (
	"strings"
	"testing"

	"oj/core/job"
	"oj/core/judge/problem/problemtest"
)

// nulChecker follows the testlib protocol without testlib: it compares the solution's
// first token with the answer's and says so with a message that carries a NUL byte, an
// invalid UTF-8 byte and the expected answer — what a careless checker echoing a
// contestant's output can write. PostgreSQL can store neither byte as text.
const nulChecker = `#include <cstdio>
#include <cstring>
int main(int argc, char **argv) {
	char out[64] = {0}, ans[64] = {0};
	FILE *o = fopen(argv[2], "r"), *a = fopen(argv[3], "r");
	if (!o || !a || fscanf(a, "%63s", ans) != 1) return 3;
	if (fscanf(o, "%63s", out) != 1) out[0] = 0;
	bool ok = strcmp(out, ans) == 0;
	fprintf(stderr, "%s", ok ? "ok " : "wrong ");
	fputc(0, stderr);
	fputc(0xff, stderr);
	fprintf(stderr, " expected %s", ans);
	return ok ? 0 : 1;
}
`

// A checker whose message PostgreSQL cannot hold as it is neither stalls the pipeline
// nor changes a verdict: the messages are made storable where they enter PostgreSQL, the
// owner's text never quotes the checker, and the worker goes on judging.
func TestCheckerPrintingNULThroughThePipeline(t *testing.T) {
	s := newSystem(t, 2)
	files := problemtest.APlusB(aplusbYAML + "checker: {type: testlib, source: checker.cpp}\n")
	files["checker.cpp"] = nulChecker
	sha := s.problem(t, files)
	right := "a, b = map(int, input().split())\nprint(a + b)\n"
	wrong := "a, b = map(int, input().split())\nprint(a + b + 1)\n"
	ids := []string{s.submit(t, sha, "python3", right), s.submit(t, sha, "python3", wrong), s.submit(t, sha, "python3", right)}
	want := []job.Verdict{job.VerdictAC, job.VerdictWA, job.VerdictAC}
	for i, id := range ids {
		sub := s.wait(t, id)
		if sub.State != job.StateFinished || sub.Verdict != want[i] || sub.Attempt != 1 {
			t.Fatalf("submission %d: state %s verdict %s attempt %d compile output %q; want finished %s at attempt 1",
				i, sub.State, sub.Verdict, sub.Attempt, sub.CompileOutput, want[i])
		}
		for _, c := range sub.Cases {
			if strings.ContainsAny(c.Message+c.CheckerMessage, "\x00") || strings.Contains(c.Message, "expected") {
				t.Fatalf("submission %d case %d: message %q, checker message %q", i, c.Index, c.Message, c.CheckerMessage)
			}
			if !strings.Contains(c.CheckerMessage, "\uFFFD") || !strings.Contains(c.CheckerMessage, "expected") {
				t.Fatalf("submission %d case %d: the admin's checker message %q lost the checker's text", i, c.Index, c.CheckerMessage)
			}
		}
	}
	// The worker is still judging: one more, after the hostile ones were written back.
	if sub := s.wait(t, s.submit(t, sha, "python3", right)); sub.Verdict != job.VerdictAC {
		t.Fatalf("after the hostile messages: verdict %s", sub.Verdict)
	}
}
