package judge

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"oj/core/job"
	"oj/core/judge/objstore"
	"oj/core/judge/problem/problemtest"
)

// escapeClasses is one of every kind of character JSON encodes in more than one byte:
// the control characters (six bytes each), the quote and the backslash, the HTML
// characters Go escapes by default, the line and paragraph separators, and a multi-byte
// character that a byte cut could split.
var escapeClasses = func() string {
	var b strings.Builder
	for c := 0; c < 0x20; c++ {
		b.WriteByte(byte(c))
	}
	b.WriteString("\"\\<>&\u2028\u2029é€😀")
	return b.String()
}()

// cases.json always parses: whatever a program wrote, each case is bounded on its own,
// before encoding, so the document is never cut in the middle of its JSON.
func TestCasesDocumentAlwaysParses(t *testing.T) {
	const excerpt = 1024
	budget := caseBudget(excerpt)
	for _, n := range []int{0, 1, 10, 100, 1000} {
		cases := make([]objstore.RunCase, n)
		for i := range cases {
			big := strings.Repeat(escapeClasses, excerpt/len(escapeClasses)+1)[:excerpt]
			cases[i] = objstore.RunCase{Index: i + 1, Verdict: "WA", Stdout: big, Stderr: big, Checker: big}
		}
		b, err := casesDocument(cases, budget)
		if err != nil {
			t.Fatal(err)
		}
		var got objstore.RunCases
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%d cases: not JSON: %v", n, err)
		}
		if len(got.Cases) != n || len(b) > budget*n+32 {
			t.Fatalf("%d cases: %d decoded, %d bytes (budget %d each)", n, len(got.Cases), len(b), budget)
		}
		for _, c := range got.Cases {
			for _, s := range []string{c.Stdout, c.Stderr, c.Checker} {
				if !utf8.ValidString(s) || !strings.HasSuffix(s, truncatedMark) || len(s) < 64 {
					t.Fatalf("case %d: a text is %q", c.Index, s)
				}
			}
		}
	}
	// Within its budget, a case is stored exactly, HTML characters as themselves.
	b, err := casesDocument([]objstore.RunCase{{Index: 1, Stdout: escapeClasses, Stderr: "<a&b>"}}, budget)
	if err != nil {
		t.Fatal(err)
	}
	var got objstore.RunCases
	if err := json.Unmarshal(b, &got); err != nil || got.Cases[0].Stdout != escapeClasses || !strings.Contains(string(b), "<a&b>") {
		t.Fatalf("a small case: %s %v", b, err)
	}
}

// On the real sandbox: a program printing every escape class over its whole output
// leaves a cases.json that parses, with every case in it.
func TestStoredExcerptsParseWhateverTheProgramPrints(t *testing.T) {
	needSandbox(t)
	sha := putProblem(t, problemtest.APlusB("title: Escapes\n"))
	src := "import sys\ns = ''.join(map(chr, range(32))) + '\"\\\\<>&\\u2028\\u2029é€😀'\n" +
		"sys.stdout.write(s * 400)\nsys.stderr.write(s * 400)\n"
	id := "escapes-" + strings.ReplaceAll(t.Name(), "/", "-")
	out, err := testJudge.Judge(context.Background(), job.Task{SubmissionID: id, ProblemSHA256: sha,
		Language: "python3", Source: src, Attempt: 1})
	if err != nil {
		t.Fatal(err)
	}
	if out.Verdict != job.VerdictWA {
		t.Fatalf("verdict %s", out.Verdict)
	}
	rc, err := testStore.Get(context.Background(), objstore.RunKey(id, 1, objstore.CasesFile))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	var got objstore.RunCases
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("stored cases.json (%d bytes) does not parse: %v", len(b), err)
	}
	if len(got.Cases) != 3 {
		t.Fatalf("%d cases stored, want 3", len(got.Cases))
	}
	for _, c := range got.Cases {
		if !strings.HasPrefix(c.Stdout, "\x00\x01") || !strings.HasPrefix(c.Stderr, "\x00\x01") {
			t.Fatalf("case %d: stdout %q…", c.Index, c.Stdout[:min(20, len(c.Stdout))])
		}
	}
}
