// Command ojd runs the oj judge daemons: the HTTP API, the outbox dispatcher and the
// judging worker, each as its own subcommand (and all three in one process with "all"),
// plus the operator's one-shot commands (migrate, token, sandbox run).
package main

import (
	"os"

	"oj/sandbox"
)

func main() {
	sandbox.MaybeRunChild() // returns at once unless this process is a sandbox init
	if err := newRootCmd().Execute(); err != nil {
		os.Exit(1)
	}
}
