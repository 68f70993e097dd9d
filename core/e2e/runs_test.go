package e2e_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"oj/core/api/client"
	"oj/core/store"
	"oj/core/testenv"
	"oj/core/wire"
)

// runProgram reads its input: "loop" spins forever, "alloc" touches 256 MiB, anything
// else is two numbers whose sum it prints.
const runProgram = `#include <cstdio>
#include <cstring>
#include <cstdlib>
int main() {
    char word[32] = {0};
    if (scanf("%31s", word) != 1) return 3;
    if (!strcmp(word, "loop")) { volatile unsigned long x = 0; for (;;) x++; }
    if (!strcmp(word, "alloc")) {
        size_t n = 256u << 20;
        volatile char *p = (volatile char *)malloc(n);
        if (!p) return 4;
        for (size_t i = 0; i < n; i += 4096) p[i] = 1; // every page, which no optimiser may skip
        printf("%d\n", p[n - 4096]);
        return 0;
    }
    long b; scanf("%ld", &b);
    printf("%ld\n", atol(word) + b);
    return 0;
}
`

// userOn returns a client of a new user token on the API that c talks to.
func userOn(t *testing.T, s *system, c *client.Client, name string) *client.Client {
	t.Helper()
	tok, err := store.CreateToken(context.Background(), s.db, testenv.RandomName(name+"-"), "user")
	if err != nil {
		t.Fatal(err)
	}
	return client.New(c.BaseURL, tok)
}

// runAndWait posts req and polls until the run finished.
func runAndWait(t *testing.T, c *client.Client, req wire.RunRequest) *wire.Run {
	t.Helper()
	wait := int64(10_000)
	req.WaitMS = &wait
	res, err := c.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		if res.Run != nil && res.Run.Terminal() {
			return res.Run
		}
		r, err := c.GetRun(context.Background(), res.ID())
		if err != nil {
			t.Fatal(err)
		}
		res.Run = r
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("run %s not finished in 3 minutes", res.ID())
	return nil
}

// Runs on the real stack and sandbox, through the HTTP API: a C++ program on three inputs
// (one fast, one looping, one allocating past the limit), a Python program writing to
// stderr, a compile error, limits over the maxima clamped and said so, and another user's
// run answering 404.
func TestRunsEndToEnd(t *testing.T) {
	s := newSystem(t, 2)
	admin := apiOn(t, s, nil)
	alice, bob := userOn(t, s, admin, "alice"), userOn(t, s, admin, "bob")

	r := runAndWait(t, alice, wire.RunRequest{Language: "cpp17", Source: runProgram,
		Stdins: []string{"2 40\n", "loop\n", "alloc\n"}, Limits: &wire.RunLimits{TimeMS: 1000, MemoryMB: 64}})
	if r.State != "finished" || r.Verdict != nil || len(r.Results) != 3 || r.Inputs != 3 {
		t.Fatalf("C++ run: %+v", r)
	}
	if r.Limits.TimeMS != 1000 || r.Limits.MemoryMB != 64 || len(r.Clamped) != 0 {
		t.Fatalf("limits: %+v %v", r.Limits, r.Clamped)
	}
	fast, loop, alloc := r.Results[0], r.Results[1], r.Results[2]
	if fast.Status != "OK" || fast.Stdout != "42\n" || fast.ExitCode != 0 || fast.StdoutTruncated {
		t.Errorf("fast input: %+v", fast)
	}
	// Killed at its CPU limit, or at its wall limit on a host too loaded to give it the CPU.
	if loop.Status != "TLE" || (loop.TimeMS < 1000 && loop.WallMS < 4000) {
		t.Errorf("looping input: %+v", loop)
	}
	if alloc.Status != "MLE" {
		t.Errorf("allocating input: %+v", alloc)
	}

	py := runAndWait(t, alice, wire.RunRequest{Language: "python3",
		Source: "import sys\nprint('to stdout')\nprint('to stderr', file=sys.stderr)\nsys.exit(3)\n"})
	if len(py.Results) != 1 {
		t.Fatalf("python run: %+v", py)
	}
	if p := py.Results[0]; p.Status != "RE" || p.ExitCode != 3 || p.Stdout != "to stdout\n" || p.Stderr != "to stderr\n" {
		t.Errorf("python run: %+v", p)
	}

	ce := runAndWait(t, alice, wire.RunRequest{Language: "cpp17", Source: "int main( {"})
	if ce.Verdict == nil || *ce.Verdict != "CE" || !strings.Contains(ce.CompileOutput, "error") || len(ce.Results) != 0 {
		t.Errorf("compile error: %+v", ce)
	}

	big := runAndWait(t, alice, wire.RunRequest{Language: "python3", Source: "print('x' * 100000)",
		Limits: &wire.RunLimits{TimeMS: 3_600_000, MemoryMB: 1 << 20}})
	if big.Limits.TimeMS != 10_000 || big.Limits.MemoryMB != 1024 || len(big.Clamped) != 2 ||
		!strings.Contains(big.Clamped[0], "runs.max_time") || !strings.Contains(big.Clamped[1], "runs.max_memory") {
		t.Errorf("clamped: %+v %v", big.Limits, big.Clamped)
	}
	if o := big.Results[0]; o.Status != "OK" || !o.StdoutTruncated || len(o.Stdout) != 64<<10 {
		t.Errorf("long output: status %s, truncated %v, %d bytes kept", o.Status, o.StdoutTruncated, len(o.Stdout))
	}

	_, err := bob.GetRun(context.Background(), r.ID)
	var ce404 *client.Error
	if !errors.As(err, &ce404) || ce404.Status != http.StatusNotFound {
		t.Errorf("another user's run: %v", err)
	}
	if got, err := admin.GetRun(context.Background(), r.ID); err != nil || got.ID != r.ID {
		t.Errorf("the run as admin: %+v %v", got, err)
	}
	if _, err := alice.Submission(context.Background(), r.ID); !errors.As(err, &ce404) || ce404.Status != http.StatusNotFound {
		t.Errorf("a run read as a submission: %v", err)
	}
}
