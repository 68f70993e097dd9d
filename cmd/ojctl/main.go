// Command ojctl is the operator's tool for oj: a dashboard (ojctl with no arguments on a
// terminal, or ojctl dash) and a scriptable CLI for cron. It is a client of ojd api's HTTP
// endpoints only (core/api/client); it never touches PostgreSQL or Redis.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	a := &app{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv,
		stdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		stdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		stderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
	code := a.execute(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
