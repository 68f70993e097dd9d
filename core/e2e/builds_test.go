package e2e_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"oj/core/api"
	"oj/core/api/client"
	"oj/core/build"
	"oj/core/judge"
	"oj/core/judge/problem"
	"oj/core/judge/problem/problemtest"
	"oj/core/store"
	"oj/core/testenv"
	"oj/core/wire"
)

// libH stands in for testlib.h: a header of the tests' own that the checker includes.
const libH = `#pragma once
#include <cstdio>
inline bool same_number(const char *out, const char *ans) {
	long long a, b;
	FILE *o = std::fopen(out, "r"), *e = std::fopen(ans, "r");
	return o && e && std::fscanf(o, "%lld", &a) == 1 && std::fscanf(e, "%lld", &b) == 1 && a == b;
}
`

const libChecker = `#include "judgelib.h"
int main(int argc, char **argv) { return argc == 4 && same_number(argv[2], argv[3]) ? 0 : 1; }
`

func testLog() *slog.Logger {
	if os.Getenv("OJ_TEST_VERBOSE") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// apiOn serves the real API over s, with a build client on keys whose workers are those
// that serve them, and returns an admin client.
func apiOn(t *testing.T, s *system, builds *build.Client) *client.Client {
	t.Helper()
	cfg := api.DefaultConfig()
	cfg.Webhooks.AllowPrivate = true // as the system's dispatcher: the tests' receivers listen on 127.0.0.1
	reg := prometheus.NewRegistry()
	srv := api.New(cfg, api.Deps{DB: s.db, Streams: s.streams, Languages: s.judge.Languages(), Objects: s.store,
		PackageLimits: problem.DefaultLimits(), Builds: builds, Registerer: reg, Gatherer: reg})
	ctx, cancel := context.WithCancel(context.Background())
	srv.Start(ctx)
	h := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { h.Close(); cancel() })
	tok, err := store.CreateToken(context.Background(), s.db, testenv.RandomName("admin-"), "admin")
	if err != nil {
		t.Fatal(err)
	}
	return client.New(h.URL, tok)
}

func put(c *client.Client, id string, files map[string]string) (*wire.Problem, *client.Error) {
	p, err := c.PutProblem(context.Background(), id, bytes.NewReader(problemtest.Zip(files)))
	var ce *client.Error
	if errors.As(err, &ce) {
		return p, ce
	}
	if err != nil {
		return p, &client.Error{Message: err.Error()}
	}
	return p, nil
}

func (s *system) waitAPI(t *testing.T, c *client.Client, id string) *wire.Submission {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		if sub, err := c.Submission(context.Background(), id); err == nil && sub.Terminal() {
			return sub
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("submission %s not terminal in 3 minutes", id)
	return nil
}

// An upload's checker is compiled by a worker in its sandbox before the version exists:
// one that does not compile is a 400 quoting the compiler and creates nothing; one that
// compiles is a version whose submissions are judged with it. A checker that fails while
// judging ends its submission as SE with a reason, and a submission no worker can judge
// ends dead with one, both through GET.
func TestToolsBuildAtUploadEndToEnd(t *testing.T) {
	s := newSystem(t, 2)
	bs := build.NewServer(s.streams.Client(), s.streams.Keys, s.judge, "e2e-builder", 2, testLog())
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = bs.Run(ctx) }()
	t.Cleanup(func() { stop(); <-done })
	admin := apiOn(t, s, build.NewClient(s.streams.Client(), s.streams.Keys, 2*time.Minute))

	withChecker := func(extra map[string]string) map[string]string {
		files := problemtest.APlusB(aplusbYAML + "checker: {type: testlib, source: checker.cpp}\n")
		for k, v := range extra {
			files[k] = v
		}
		return files
	}
	_, aerr := put(admin, "lib", withChecker(map[string]string{"checker.cpp": libChecker}))
	if aerr == nil || aerr.Status != http.StatusBadRequest || !strings.Contains(aerr.Message, "checker checker.cpp does not compile") ||
		!strings.Contains(aerr.Message, "judgelib.h") || strings.Contains(aerr.Message, "main.cpp") {
		t.Fatalf("upload of a checker that does not compile: %+v", aerr)
	}
	if _, err := admin.Problem(context.Background(), "lib"); client.StatusOf(err) != http.StatusNotFound {
		t.Fatalf("a version was created for a package refused: %v", err)
	}
	p, aerr := put(admin, "lib", withChecker(map[string]string{"checker.cpp": libChecker, "judgelib.h": libH}))
	if aerr != nil || p.Version != 1 {
		t.Fatalf("upload with its header: %+v %+v", p, aerr)
	}
	submit := func(problemID, language, src string) string {
		t.Helper()
		res, err := admin.Submit(context.Background(), wire.SubmitRequest{ProblemID: problemID, Language: language, Source: src}, "")
		if err != nil {
			t.Fatal(err)
		}
		return res.ID()
	}
	right := "a, b = map(int, input().split())\nprint(a + b)\n"
	if sub := s.waitAPI(t, admin, submit("lib", "python3", right)); sub.State != "finished" || *sub.Verdict != "AC" || sub.Error != "" {
		t.Fatalf("judged with the uploaded checker: %+v", sub)
	}

	failing := withChecker(map[string]string{"checker.cpp": "int main() { return 3; }\n"})
	if _, aerr := put(admin, "fails", failing); aerr != nil {
		t.Fatalf("upload of a checker that compiles: %+v", aerr)
	}
	se := s.waitAPI(t, admin, submit("fails", "python3", right))
	if se.State != "finished" || *se.Verdict != "SE" || !strings.HasPrefix(se.Error, "case 1: ") || se.Attempt != 1 {
		t.Fatalf("a checker failing while judging: %+v", se)
	}

	// A language the API takes but this worker is not configured with: retried, then dead.
	id, err := store.Submit(context.Background(), s.db, store.NewSubmission{ProblemID: "lib", ProblemVersion: 1,
		ProblemSHA256: p.SHA256, Language: "cobol", Lane: "light", Source: "x", MaxAttempts: 2,
		TraceID: testenv.RandomName("e2e-")})
	if err != nil {
		t.Fatal(err)
	}
	dead := s.waitAPI(t, admin, id)
	if dead.State != "dead" || *dead.Verdict != "SE" || !strings.Contains(dead.Error, `unknown language "cobol"`) {
		t.Fatalf("dead submission: %+v", dead)
	}
}

// Without a worker to answer, an upload that needs a build is a 503 that says what to
// check, with Retry-After, and creates nothing.
func TestToolBuildWithoutWorkerIs503(t *testing.T) {
	s := newSystem(t, 1)
	lonely := testenv.Streams(t, testenv.RedisAddr(t)) // keys no worker reads
	admin := apiOn(t, s, build.NewClient(lonely.Client(), lonely.Keys, time.Second))
	files := problemtest.APlusB(aplusbYAML + "checker: {type: testlib, source: checker.cpp}\n")
	files["checker.cpp"] = "int main() { return 0; }\n"
	req, err := http.NewRequest(http.MethodPut, admin.BaseURL+"/api/v1/problems/nobody", bytes.NewReader(problemtest.Zip(files)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+admin.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		!strings.Contains(string(body), "api.tool_build_timeout") || !strings.Contains(string(body), "ojd worker") {
		t.Fatalf("upload with no worker: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if _, err := admin.Problem(context.Background(), "nobody"); client.StatusOf(err) != http.StatusNotFound {
		t.Fatalf("a version was created without a build: %v", err)
	}
	// A package with nothing to build needs no worker.
	if _, aerr := put(admin, "plain", problemtest.APlusB(aplusbYAML)); aerr != nil {
		t.Fatalf("upload of a package without tools: %+v", aerr)
	}
}

// A checker whose compile blocks is cut at judge.tool_compile.wall and answered 400 with
// that reason, while an upload sent after it began is built and answered meanwhile
// rather than behind it (the worker has two build slots).
func TestBlockingCheckerIsCutWhileOthersBuild(t *testing.T) {
	const wall = 20 * time.Second // far above a small checker's compile, even on a loaded host
	s := newSystem(t, 1, func(c *judge.Config) {
		c.ToolCompile.CPU, c.ToolCompile.Wall = 10*time.Second, wall
		c.PrecompiledHeaders = false // nothing here is judged: spare the suite their CPU
	})
	bs := build.NewServer(s.streams.Client(), s.streams.Keys, s.judge, "e2e-builder", 2, testLog())
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = bs.Run(ctx) }()
	t.Cleanup(func() { stop(); <-done })
	admin := apiOn(t, s, build.NewClient(s.streams.Client(), s.streams.Keys, 2*time.Minute))
	withChecker := func(src string) map[string]string {
		files := problemtest.APlusB(aplusbYAML + "checker: {type: testlib, source: checker.cpp}\n")
		files["checker.cpp"] = src
		return files
	}

	type answer struct {
		p   *wire.Problem
		err *client.Error
	}
	blocked := make(chan answer, 1)
	go func() {
		// The compiler reads its own standard output, a pipe nothing writes to.
		p, aerr := put(admin, "blocks", withChecker("#include \"/dev/stdout\"\nint main() { return 0; }\n"))
		blocked <- answer{p, aerr}
	}()
	// Once its build request is taken by the worker, the next upload goes.
	rdb, key := s.streams.Client(), s.streams.Keys.BuildRequests()
	for {
		p, err := rdb.XPending(context.Background(), key, build.Group).Result()
		if err == nil && p.Count > 0 {
			break
		}
		select {
		case a := <-blocked:
			t.Fatalf("the blocking upload was answered before its build began: %+v %+v", a.p, a.err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	p, aerr := put(admin, "quick", withChecker("#include <cstdio>\nint main(int argc, char **argv) { return argc == 4 ? 0 : 3; }\n"))
	if aerr != nil || p.Version != 1 {
		t.Fatalf("an upload while another's build blocks: %+v %+v", p, aerr)
	}
	select {
	case a := <-blocked:
		t.Fatalf("the blocking upload was answered (%+v %+v) before the one sent after it", a.p, a.err)
	default:
	}

	a := <-blocked
	want := "checker checker.cpp: the compile did not finish within judge.tool_compile.wall (20s), so the version was not created"
	if a.err == nil || a.err.Status != http.StatusBadRequest || a.err.Code != "invalid_package" || !strings.Contains(a.err.Message, want) {
		t.Fatalf("the blocking upload: %+v %+v, want 400 invalid_package saying %q", a.p, a.err, want)
	}
	if strings.Contains(a.err.Message, "/tmp/") || strings.Contains(a.err.Message, "/var/") {
		t.Fatalf("the answer shows a path of the worker's: %s", a.err.Message)
	}
	if _, err := admin.Problem(context.Background(), "blocks"); client.StatusOf(err) != http.StatusNotFound {
		t.Fatalf("a version was created for a checker that never compiled: %v", err)
	}
}
