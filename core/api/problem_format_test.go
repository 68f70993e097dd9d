package api_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"oj/core/api/client"
	"oj/core/judge/problem/problemtest"
)

// TestProblemFormatOverHTTP: what the problem format promises, seen by an admin
// uploading packages: stop_on_first_failure is kept with the version, a package in one
// top folder is accepted, and a mistake in problem.yaml or a bad layout answers 400
// with the line, the key and what was found.
func TestProblemFormatOverHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true})
	ctx := context.Background()

	p, err := e.admin.PutProblem(ctx, "icpc", strings.NewReader(problemZip("title: ICPC\nstop_on_first_failure: true\n")))
	if err != nil || !p.StopOnFirstFailure {
		t.Fatalf("upload = %+v %v, want stop_on_first_failure", p, err)
	}
	if got, err := e.alice.Problem(ctx, "icpc"); err != nil || !got.StopOnFirstFailure || got.Version != p.Version {
		t.Fatalf("get = %+v %v", got, err)
	}
	if got, err := e.alice.Problem(ctx, "aplusb"); err != nil || got.StopOnFirstFailure {
		t.Fatalf("default: %+v %v, want stop_on_first_failure false", got, err)
	}

	inFolder := map[string]string{"__MACOSX/aplusb/._problem.yaml": "x"}
	for n, c := range problemtest.APlusB("title: In a folder\n") {
		inFolder["aplusb/"+n] = c
	}
	if p, err := e.admin.PutProblem(ctx, "folder", strings.NewReader(zipOf(inFolder))); err != nil || p.CaseCount != 3 {
		t.Fatalf("package in a top folder: %+v %v", p, err)
	}

	two := map[string]string{}
	for n, c := range problemtest.APlusB("title: X\n") {
		two["a/"+n], two["b/"+n] = c, c
	}
	for name, c := range map[string]struct{ zip, want string }{
		"typo in a key": {problemZip("title: X\ntime_limit: 1000\n"),
			`problem.yaml line 2: unknown key "time_limit" (did you mean "time_limit_ms"?`},
		"wrong type": {problemZip("title: X\nmemory_limit_mb: lots\n"),
			`problem.yaml line 2: memory_limit_mb: want a whole number of MiB, 1..4096, got "lots"`},
		"several packages": {zipOf(two), "the zip holds several packages (problem.yaml in a/, b/)"},
	} {
		_, err := e.admin.PutProblem(ctx, "bad", strings.NewReader(c.zip))
		var ae *client.Error
		if !errors.As(err, &ae) || ae.Status != 400 || ae.Code != "invalid_package" || !strings.Contains(ae.Message, c.want) {
			t.Errorf("%s: %v, want 400 invalid_package saying %q", name, err, c.want)
		}
	}
}
