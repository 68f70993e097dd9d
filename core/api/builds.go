package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"oj/core/build"
	"oj/core/judge"
	"oj/core/judge/problem"
)

// ToolBuilds has a worker compile a package's checker and interactor (core/build.Client).
type ToolBuilds interface {
	Build(ctx context.Context, sha, traceID string) (build.Reply, error)
	Timeout() time.Duration
}

// Bounds of the compiler output quoted in a 400: its first lines say what is wrong.
const (
	compileQuoteLines = 20
	compileQuoteBytes = 4 << 10
)

// buildTools has a worker compile pkg's checker or interactor (stored as sha) before the
// upload becomes a version: 400 with the compiler's message when it does not compile, or
// with the bound when its compile did not finish within it; 503 when no worker answered
// (upload again once one runs), or when the worker that answered failed for reasons of
// its own (its sandbox, its storage). A package without either needs no worker. No
// answer shows a path of the worker's host: the worker's log has the whole error.
func (s *Server) buildTools(ctx context.Context, sha string, pkg *problem.Package) *apiError {
	if !judge.NeedsBuild(pkg.Spec) {
		return nil
	}
	if s.d.Builds == nil {
		return &apiError{status: http.StatusServiceUnavailable, code: codeUnavailable, retryAfter: time.Minute,
			msg: "this API server cannot have checkers and interactors compiled (no build service wired): the package was not stored as a version"}
	}
	r, err := s.d.Builds.Build(ctx, sha, infoFrom(ctx).traceID)
	switch {
	case errors.Is(err, build.ErrNoAnswer):
		return &apiError{status: http.StatusServiceUnavailable, code: codeUnavailable, retryAfter: 10 * time.Second,
			msg: fmt.Sprintf("no worker answered within %s (api.tool_build_timeout) to compile the package's %s: "+
				"is an ojd worker running and connected to the same Redis (systemctl status ojd-worker)? The version was not created; upload again",
				s.d.Builds.Timeout(), toolNames(pkg.Spec)), cause: err}
	case err != nil:
		return &apiError{status: http.StatusServiceUnavailable, code: codeUnavailable, retryAfter: 2 * time.Second,
			msg: "build request: redis unavailable, retry later", cause: err}
	}
	switch r.Status {
	case build.StatusOK:
		return nil
	case build.StatusCompileError:
		msg := fmt.Sprintf("%s %s does not compile (the version was not created):\n%s", r.Kind, r.Source, quoteCompiler(r.Message))
		if strings.Contains(r.Message, "testlib.h") {
			msg += "\nhint: put testlib.h at the package's top level, next to the source, or have the operator set judge.tool_include_dirs"
		}
		return errorf(http.StatusBadRequest, codeInvalidPackage, "%s", msg)
	case build.StatusTimeout:
		return errorf(http.StatusBadRequest, codeInvalidPackage, "%s %s, so the version was not created: a source whose compile "+
			"waits on something (a device, a pipe) never finishes; if it is only large, the operator may raise that bound",
			r.Kind, hidePaths(r.Message))
	case build.StatusInvalid:
		return errorf(http.StatusBadRequest, codeInvalidPackage, "worker %s cannot read the package: %s", r.Worker, hidePaths(r.Message))
	default:
		return &apiError{status: http.StatusServiceUnavailable, code: codeUnavailable, retryAfter: 30 * time.Second,
			msg: fmt.Sprintf("worker %s failed to build the package's %s, for reasons of its own rather than the package's: %s; "+
				"the version was not created. That worker's log has the whole error", r.Worker, toolNames(pkg.Spec),
				hidePaths(quoteCompiler(r.Message)))}
	}
}

// hostPath is an absolute path of two or more parts, such as a worker's work or cache
// dir in an error of its own.
var hostPath = regexp.MustCompile(`(?:/[^\s/:'"()\[\]{},;]+){2,}/?`)

// hidePaths replaces the host paths in a worker's error with "…": they say how the
// worker is laid out, which is no business of the uploader, and the worker logs them.
func hidePaths(s string) string { return hostPath.ReplaceAllString(s, "…") }

// toolNames names what a package needs built, for messages.
func toolNames(spec problem.Spec) string {
	var names []string
	switch spec.Checker.Type {
	case problem.CheckerTestlib:
		names = append(names, "checker "+spec.Checker.Source)
	case problem.CheckerKattis:
		names = append(names, "validator "+spec.Checker.Source)
	}
	if spec.Interactor != "" {
		names = append(names, "interactor "+spec.Interactor)
	}
	return strings.Join(names, " and ")
}

// quoteCompiler keeps the first lines of a compiler's output, bounded.
func quoteCompiler(out string) string {
	lines := strings.SplitAfter(strings.TrimRight(out, "\n"), "\n")
	cut := len(lines) > compileQuoteLines
	if cut {
		lines = lines[:compileQuoteLines]
	}
	q := strings.Join(lines, "")
	if len(q) > compileQuoteBytes {
		q, cut = q[:compileQuoteBytes], true
	}
	q = strings.ToValidUTF8(q, "?")
	if cut {
		q += "\n…[truncated]"
	}
	return q
}
