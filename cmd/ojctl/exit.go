package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"oj/core/api/client"
)

// Exit codes: stable, documented in docs/ojctl.md, relied on by cron scripts.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2 // usage error, or refused (no --yes without a terminal, answered no)
	exitPartial = 3 // partly done: some of what was asked was done, some not
)

// Codes of ojctl's own errors in -o json / -o jsonl (an error the server answered keeps
// the server's code).
const (
	codeUsage       = "usage"       // bad command, flag or argument (exit 2)
	codeRefused     = "refused"     // no --yes without a terminal, or answered no (exit 2)
	codePartly      = "partly_done" // exit 3
	codeFailed      = "failed"      // exit 1
	codeUnreachable = "unreachable" // the server could not be reached (exit 1)
	codeInterrupted = "interrupted" // Ctrl-C or SIGTERM (exit 1)
)

// exitError is an error with its own exit code and JSON code; an empty message prints
// nothing.
type exitError struct {
	code int
	kind string
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErr(err error) error { return &exitError{code: exitUsage, kind: codeUsage, msg: err.Error()} }

func usagef(format string, args ...any) error {
	return &exitError{code: exitUsage, kind: codeUsage, msg: fmt.Sprintf(format, args...)}
}

func refusedf(format string, args ...any) error {
	return &exitError{code: exitUsage, kind: codeRefused, msg: fmt.Sprintf(format, args...)}
}

func partialf(format string, args ...any) error {
	return &exitError{code: exitPartial, kind: codePartly, msg: fmt.Sprintf(format, args...)}
}

func failf(format string, args ...any) error {
	return &exitError{code: exitFailure, kind: codeFailed, msg: fmt.Sprintf(format, args...)}
}

// errorJSON is how -o json and -o jsonl report an error on stdout: the API's error shape,
// with the HTTP status, server and advice when the server answered.
type errorJSON struct {
	Time  string        `json:"time,omitempty"`
	Error errorJSONBody `json:"error"`
}

type errorJSONBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Status  int    `json:"status,omitempty"`
	Server  string `json:"server,omitempty"`
	// Hint says what to do, for the errors where ojctl knows (401, 403).
	Hint         string `json:"hint,omitempty"`
	RetryAfterMS int64  `json:"retry_after_ms,omitempty"`
}

// report prints err and returns the exit code; cmd is the command that ran (or failed to
// parse). As a table the error is one "ojctl: …" line on stderr; with -o json or -o
// jsonl it is a JSON object on stdout (errorJSON), unless -o json already printed the
// command's answer (partly done: stdout keeps one document, the error goes to stderr).
func (a *app) report(cmd *cobra.Command, err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	var ce *client.Error
	code, msg := exitFailure, err.Error()
	body := errorJSONBody{Code: codeFailed}
	switch {
	case errors.As(err, &ee):
		code, msg, body.Code = ee.code, ee.msg, ee.kind
	case errors.As(err, &ce):
		msg = describeAPIError(ce)
		body = apiErrorJSON(ce)
	case errors.Is(err, context.Canceled):
		msg, body.Code = "interrupted", codeInterrupted
	case !a.ran:
		// cobra's own errors: unknown command, wrong number of arguments, missing flags.
		code, body.Code = exitUsage, codeUsage
		path := "ojctl"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		msg = err.Error() + "\nRun '" + path + " --help' for usage."
	}
	if msg == "" {
		return code
	}
	if body.Message == "" {
		body.Message = msg
	}
	jsonOut := a.output == "json" || a.output == "jsonl"
	if jsonOut && (a.jsonLines || !a.printed) {
		out := errorJSON{Error: body}
		if a.jsonLines || a.output == "jsonl" {
			out.Time = a.clock().Format(time.RFC3339)
		}
		if json.NewEncoder(a.stdout).Encode(out) == nil {
			return code
		}
	}
	fmt.Fprintln(a.stderr, "ojctl: "+msg)
	return code
}

// apiErrorJSON is a failed call as -o json reports it: the server's code, message and
// status, or "unreachable" when there was no answer.
func apiErrorJSON(e *client.Error) errorJSONBody {
	if e.Status == 0 {
		return errorJSONBody{Code: codeUnreachable, Message: describeAPIError(e), Server: e.Server}
	}
	return errorJSONBody{Code: e.Code, Message: e.Message, Status: e.Status, Server: e.Server, Hint: apiHint(e),
		RetryAfterMS: e.RetryAfter.Milliseconds()}
}

// notAdmin is what a 403 means here: the server refuses a user token on admin routes.
const notAdmin = "this token is not an admin token: this command needs one " +
	"(an operator creates one with `ojd token create --name NAME --role admin`)"

// apiHint says what to do about a refused call, when ojctl knows.
func apiHint(e *client.Error) string {
	switch e.Status {
	case 401:
		return "the token is missing or invalid: pass --token, set OJCTL_TOKEN or put it in a context;" +
			" an operator creates tokens with `ojd token create --name NAME --role user|admin`"
	case 403:
		return notAdmin
	}
	return ""
}

// describeAPIError names the server, the HTTP status and the server's reason, and for
// 401/403 says which token is needed and where tokens come from (a 403 leads with it).
func describeAPIError(e *client.Error) string {
	if e.Status == 0 {
		cause := e.Err
		var ue *url.Error
		if errors.As(cause, &ue) {
			cause = ue.Err
		}
		return fmt.Sprintf("%s: cannot reach the server: %v", e.Server, cause)
	}
	var b strings.Builder
	if e.Status == 403 {
		fmt.Fprintf(&b, "%s: %s — HTTP %d %s: %s", e.Server, notAdmin, e.Status, e.Code, e.Message)
	} else {
		fmt.Fprintf(&b, "%s: HTTP %d %s: %s", e.Server, e.Status, e.Code, e.Message)
		if h := apiHint(e); h != "" {
			b.WriteString(" (" + h + ")")
		}
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	return b.String()
}
