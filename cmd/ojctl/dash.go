package main

import (
	"time"

	"github.com/spf13/cobra"

	"oj/tui"
)

// minRefresh is the dashboard's fastest refresh: faster would load the server for nothing.
const minRefresh = time.Second

// dashFlags are the dashboard's flags, on both "ojctl" and "ojctl dash".
type dashFlags struct {
	refresh  *time.Duration
	readOnly *bool
}

func (d *dashFlags) register(cmd *cobra.Command) {
	d.refresh = cmd.Flags().Duration("refresh", 2*time.Second, "dashboard refresh interval (at least 1s)")
	d.readOnly = cmd.Flags().Bool("readonly", false, "dashboard: hide and refuse every action")
}

func newDashCmd(a *app) *cobra.Command {
	d := dashFlags{}
	cmd := &cobra.Command{
		Use:   "dash [--refresh D] [--readonly]",
		Short: "The dashboard (also: ojctl with no command, on a terminal)",
		Long: `A terminal dashboard over the admin API with the views Overview, PEL, Consumers,
Outbox, DLQ, Submissions, Workers and Audit. k9s habits: ":" jumps to a view, "/"
filters, "?" lists every key, space marks rows, enter opens the detail, esc goes
back, r refreshes, p pauses, q quits. Actions (reclaim, replay, safe trim, rejudge,
cancel) ask y/N showing the dry-run count; --readonly hides and refuses them all.
When the server cannot be reached the last data stays on screen marked stale, and
the dashboard recovers by itself. Needs an admin token.`,
		Example: `  ojctl dash
  ojctl dash --readonly --refresh 5s
  ojctl --context prod dash --readonly`,
		Args: cobra.NoArgs,
		RunE: a.run(func(cmd *cobra.Command, _ []string) error { return a.dash(cmd, d) }),
	}
	d.register(cmd)
	return cmd
}

// dash starts the dashboard; it needs a terminal on both ends.
func (a *app) dash(cmd *cobra.Command, d dashFlags) error {
	if *d.refresh < minRefresh {
		return usagef("--refresh %s: the dashboard refreshes at most once a second (want >= %s)", *d.refresh, minRefresh)
	}
	if !a.stdinTTY || !a.stdoutTTY {
		return usagef("the dashboard needs a terminal; for scripts use the commands (ojctl --help)")
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	return tui.Run(cmd.Context(), tui.Options{Client: c, Server: a.serverURL, Refresh: *d.refresh, ReadOnly: *d.readOnly,
		In: a.stdin, Out: a.stdout, NoColor: a.noColor || a.getenv("NO_COLOR") != ""})
}
