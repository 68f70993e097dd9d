package main

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"

	"oj/core/api/client"
)

// app is one run of ojctl: its streams, its environment and the settings resolved from
// flags, environment and config file. main builds one from the process; tests build their
// own, so nothing here reads os.* directly.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// Whether each stream is a terminal: decides prompts, colour, progress and the dashboard.
	stdinTTY, stdoutTTY, stderrTTY bool

	// Global flags.
	server, token, contextName, output string
	noColor                            bool
	// jsonLines is -o jsonl. Its output is set to "json" then, so that what a command
	// decides for JSON (progress lines on stderr) holds for both.
	jsonLines bool
	// printed is set once a command printed its answer in JSON: an error after it (partly
	// done) must not add a second document to -o json's stdout.
	printed bool
	// now stamps -o jsonl lines (nil: time.Now).
	now func() time.Time

	// ran is set once a command's RunE starts: errors before it (flags, arguments) are
	// usage errors (exit 2), errors after it are failures (exit 1) unless they say otherwise.
	ran bool
	// serverURL is the server the command talks to, once resolved (for error messages).
	serverURL string
}

// execute runs ojctl with args and returns the process exit code.
func (a *app) execute(ctx context.Context, args []string) int {
	root := newRootCmd(a)
	root.SetArgs(args)
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	cmd, err := root.ExecuteContextC(ctx)
	return a.report(cmd, err)
}

func newRootCmd(a *app) *cobra.Command {
	dash := dashFlags{}
	root := &cobra.Command{
		Use:   "ojctl",
		Short: "Operate an oj judge: dashboard and scriptable admin CLI",
		Long: `ojctl is the operator's tool for an oj judge. It talks to the HTTP endpoints of
ojd api only (never to PostgreSQL or Redis directly).

With no command on a terminal it starts the dashboard (same as "ojctl dash"). Every
other command prints a table, or with -o json the API's JSON on one line (stable field
names, what scripts should parse), or with -o jsonl one JSON object per line with a
"time" field (RFC 3339): a list's items one per line, any other answer one line, for
logs that cron appends to. With -o json and -o jsonl an error is JSON on stdout too:
{"error":{"code":"…","message":"…","status":403}} ("status" when the server answered).

Server and token come from --server/--token, then an explicit --context, then the
OJCTL_SERVER/OJCTL_TOKEN environment variables, then the current context of
~/.config/ojctl/config.yaml (see "ojctl config --help").

Commands that change something (reclaim, dlq replay, dlq purge, trim, rejudge, cancel,
problem rm) accept
--dry-run (show the counts, change nothing) and --yes (do not ask). On a terminal
without --yes they show the dry-run count and ask y/N; without a terminal and without
--yes they refuse.

Exit codes: 0 ok, 1 failure, 2 usage error or refused, 3 partly done.`,
		Example: `  ojctl                                  # the dashboard (on a terminal)
  ojctl overview                         # lanes, outbox, dead letters at a glance
  ojctl --context prod dlq ls -o json    # dead letters of the prod server, as JSON
  ojctl dlq replay --all --yes -o json   # from cron
  ojctl submit a.cpp --problem aplusb --wait`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			switch a.output {
			case "table", "json":
			case "jsonl":
				a.output, a.jsonLines = "json", true
			default:
				return usagef("-o %q: want table, json or jsonl", a.output)
			}
			return nil
		},
		RunE: a.run(func(cmd *cobra.Command, _ []string) error {
			if !a.stdinTTY || !a.stdoutTTY {
				return cmd.Help()
			}
			return a.dash(cmd, dash)
		}),
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.server, "server", "", "server URL, e.g. http://127.0.0.1:8080 (env OJCTL_SERVER)")
	pf.StringVar(&a.token, "token", "", "bearer token (env OJCTL_TOKEN); an operator creates one with: ojd token create")
	pf.StringVar(&a.contextName, "context", "", "named context of the config file to use instead of its current-context")
	pf.StringVarP(&a.output, "output", "o", "table", "output format: table, json (one JSON document) or jsonl (a JSON object per line, stamped with the time)")
	pf.BoolVar(&a.noColor, "no-color", false, "no colour in tables (also when NO_COLOR is set or stdout is not a terminal)")
	dash.register(root)

	root.AddGroup(
		&cobra.Group{ID: "judge", Title: "Submissions and problems:"},
		&cobra.Group{ID: "ops", Title: "Operations (admin token):"},
		&cobra.Group{ID: "tool", Title: "ojctl itself:"},
	)
	add := func(group string, cmds ...*cobra.Command) {
		for _, c := range cmds {
			c.GroupID = group
			root.AddCommand(c)
		}
	}
	add("judge", newSubmitCmd(a), newRunCmd(a), newRunStatusCmd(a), newStatusCmd(a), newLanguagesCmd(a), newProblemCmd(a))
	add("ops", newOverviewCmd(a), newPELCmd(a), newReclaimCmd(a), newOutboxCmd(a), newDLQCmd(a), newSubmissionsCmd(a),
		newTrimCmd(a), newRejudgeCmd(a), newCancelCmd(a), newWorkersCmd(a), newWorkerCmd(a), newAuditCmd(a), newTraceCmd(a),
		newTokenCmd(a), newEventsCmd(a), newWebhookCmd(a))
	add("tool", newDashCmd(a), newConfigCmd(a))
	root.SetHelpCommandGroupID("tool")
	root.SetCompletionCommandGroupID("tool")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr(err) })
	return root
}

// run wraps a command's body: from here on an error is a failure, not a usage error.
func (a *app) run(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		a.ran = true
		// Everything a command prints goes through cobra's streams (set from the app's in
		// execute), so a command can be run with its own SetOut/SetErr.
		a.stdin, a.stdout, a.stderr = cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
		return fn(cmd, args)
	}
}

// client resolves server and token (flags, context, environment, config file) and returns
// a client of that server.
func (a *app) client() (*client.Client, error) {
	server, token, err := a.resolve()
	if err != nil {
		return nil, err
	}
	a.serverURL = server
	return client.New(server, token), nil
}
