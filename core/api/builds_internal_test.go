package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"oj/core/build"
	"oj/core/judge/problem"
	"oj/core/judge/problem/problemtest"
)

// replyBuilds answers every build with one reply.
type replyBuilds struct{ r build.Reply }

func (b replyBuilds) Build(context.Context, string, string) (build.Reply, error) { return b.r, nil }
func (b replyBuilds) Timeout() time.Duration                                     { return time.Minute }

// What a worker answered decides the upload's answer: the package's faults are a 400
// saying which, the worker's own failures a 503; neither shows the worker's paths.
func TestBuildAnswers(t *testing.T) {
	t.Parallel()
	files := problemtest.APlusB("title: A\nchecker: {type: testlib, source: checker.cpp}\n")
	files["checker.cpp"] = "int main() {}\n"
	pkg, err := problem.ReadBytes(problemtest.Zip(files), problem.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.WithValue(context.Background(), ctxKey{}, &reqInfo{traceID: "t"})
	cases := []struct {
		name   string
		reply  build.Reply
		status int
		want   string
	}{
		{"cut at its bound", build.Reply{Status: build.StatusTimeout, Kind: "checker", Source: "checker.cpp", Worker: "w1",
			Message: "checker.cpp: the compile did not finish within judge.tool_compile.wall (60s)"}, http.StatusBadRequest,
			"checker checker.cpp: the compile did not finish within judge.tool_compile.wall (60s), so the version was not created"},
		{"the worker's own failure", build.Reply{Status: build.StatusFailed, Worker: "w1",
			Message: "build checker.cpp: 3 tries: compile: sandbox failure: mkdir /var/lib/oj/work/tasks/build-123/box: no space left on device"},
			http.StatusServiceUnavailable, "worker w1 failed to build the package's checker checker.cpp, for reasons of its own rather than the package's: " +
				"build checker.cpp: 3 tries: compile: sandbox failure: mkdir …: no space left on device"},
		{"a package the worker cannot read", build.Reply{Status: build.StatusInvalid, Worker: "w1",
			Message: "package cache: open /var/cache/oj/packages/ab12/problem.yaml: permission denied"}, http.StatusBadRequest,
			"worker w1 cannot read the package: package cache: open …: permission denied"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &Server{d: Deps{Builds: replyBuilds{c.reply}}}
			aerr := s.buildTools(ctx, "sha", pkg)
			if aerr == nil || aerr.status != c.status || !strings.Contains(aerr.msg, c.want) {
				t.Fatalf("answer %+v, want %d saying %q", aerr, c.status, c.want)
			}
			if strings.Contains(aerr.msg, "/var/") || strings.Contains(aerr.msg, "upload again") {
				t.Fatalf("answer %q shows a host path or asks to upload again", aerr.msg)
			}
		})
	}
}
