package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"oj/core/api/client"
)

// Exit codes: stable, documented in the README, relied on by cron scripts.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2 // usage error, or refused (no --yes without a terminal, answered no)
	exitPartial = 3 // partly done: some of what was asked was done, some not
)

// exitError is an error with its own exit code; an empty message prints nothing.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErr(err error) error { return &exitError{code: exitUsage, msg: err.Error()} }

func usagef(format string, args ...any) error {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, args...)}
}

func partialf(format string, args ...any) error {
	return &exitError{code: exitPartial, msg: fmt.Sprintf(format, args...)}
}

func failf(format string, args ...any) error {
	return &exitError{code: exitFailure, msg: fmt.Sprintf(format, args...)}
}

// report prints err (once, to stderr, prefixed "ojctl: ") and returns the exit code;
// cmd is the command that ran (or failed to parse).
func (a *app) report(cmd *cobra.Command, err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	var ce *client.Error
	code, msg := exitFailure, err.Error()
	switch {
	case errors.As(err, &ee):
		code, msg = ee.code, ee.msg
	case errors.As(err, &ce):
		msg = describeAPIError(ce)
	case errors.Is(err, context.Canceled):
		msg = "interrupted"
	case !a.ran:
		// cobra's own errors: unknown command, wrong number of arguments, missing flags.
		code = exitUsage
		path := "ojctl"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		msg = err.Error() + "\nRun '" + path + " --help' for usage."
	}
	if msg != "" {
		fmt.Fprintln(a.stderr, "ojctl: "+msg)
	}
	return code
}

// describeAPIError names the server, the HTTP status and the server's reason, and for
// 401/403 says which token is needed and where tokens come from.
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
	fmt.Fprintf(&b, "%s: HTTP %d %s: %s", e.Server, e.Status, e.Code, e.Message)
	switch e.Status {
	case 401:
		b.WriteString(" (the token is missing or invalid: pass --token, set OJCTL_TOKEN or put it in a context;" +
			" an operator creates tokens with `ojd token create --name NAME --role user|admin`)")
	case 403:
		b.WriteString(" (this command needs an admin token)")
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	return b.String()
}
