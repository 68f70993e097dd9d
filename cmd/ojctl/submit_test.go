package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"oj/core/wire"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// submit --wait prints a progress line per state event, then the verdict and the cases.
func TestSubmitWaitShowsProgressThenTheTable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.judge.Set(acceptAll, 300*time.Millisecond)
	src := writeFile(t, "sol.py", "a, b = map(int, input().split())\nprint(a + b)\n")

	r := e.ojctl("submit", src, "--problem", "aplusb", "--wait")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "submitted ", "running ", "finished ", "attempt 1", "verdict AC", "Cases", "VERDICT", "State:")
	if got := strings.Count(r.stdout, "  attempt "); got < 2 {
		t.Fatalf("want a progress line per state (running, finished), got %d:\n%s", got, r)
	}

	// -o json: the progress goes to stderr; stdout is the finished submission as the API
	// returns it.
	r = e.ojctl("submit", src, "--problem", "aplusb", "--wait", "-o", "json")
	wantCode(t, r, 0)
	wantIn(t, "stderr", r.stderr, "finished ")
	var s wire.Submission
	decode(t, r, &s)
	want, err := e.admin.Submission(context.Background(), s.ID)
	if err != nil || !reflect.DeepEqual(&s, want) || s.State != "finished" || *s.Verdict != "AC" || len(s.Cases) != 1 {
		t.Fatalf("submit --wait -o json = %+v; the API says %+v (%v)", s, want, err)
	}

	// A submission that ends dead is a failure (exit 1), still printed.
	e.judge.Set(failAll, 0)
	r = e.ojctl("submit", src, "--problem", "aplusb", "--wait")
	wantCode(t, r, 1)
	wantIn(t, "stdout", r.stdout, "dead ", "SE")
	wantIn(t, "stderr", r.stderr, "ended dead")
}

// Without --lang the language comes from the extension.
func TestSubmitGuessesTheLanguageFromTheExtension(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for ext, want := range map[string]string{".c": "c11", ".cpp": "cpp17", ".cc": "cpp17", ".py": "python3",
		".go": "go", ".java": "java17", ".rs": "rust"} {
		r := e.ojctl("submit", writeFile(t, "main"+ext, "source"), "--problem", "aplusb", "-o", "json")
		wantCode(t, r, 0)
		var acc wire.Accepted
		decode(t, r, &acc)
		s, err := e.admin.Submission(context.Background(), acc.ID)
		if err != nil || s.Language != want {
			t.Fatalf("%s: language %q, want %q (%v)", ext, s.Language, want, err)
		}
	}
	r := e.ojctl("submit", writeFile(t, "notes.txt", "x"), "--problem", "aplusb")
	wantCode(t, r, 2)
	wantIn(t, "stderr", r.stderr, "--lang")
	wantCode(t, e.ojctl("submit", writeFile(t, "a.py", "x")), 2) // no --problem
}

// status --watch follows the events until the submission is terminal.
func TestStatusWatchFollowsUntilTerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.judge.Set(acceptAll, 500*time.Millisecond)
	id := e.submit("print(1)")
	r := e.ojctl("status", id, "--watch")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "finished ", "verdict AC", "Verdict:")
	r = e.ojctl("status", "00000000-0000-0000-0000-000000000000")
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, "HTTP 404")
}
