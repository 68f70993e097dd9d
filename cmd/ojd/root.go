package main

import (
	"github.com/spf13/cobra"
)

// newRootCmd builds the command tree. Every subcommand loads the configuration through
// loadConfig, once, in its RunE.
func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "ojd",
		Short: "oj judge daemons: api, dispatcher, worker",
		Long: `ojd runs the oj judge.

  ojd all          api + dispatcher + worker in one process (a laptop or a small site)
  ojd api          the HTTP API
  ojd dispatcher   relays the PostgreSQL outbox to Redis Streams and re-drives lost work
  ojd worker       claims submissions from the streams and judges them
  ojd migrate up   applies the database migrations
  ojd token create creates an API token
  ojd config       prints the effective configuration
  ojd languages install  installs the toolchains of the configured languages

Configuration comes from --config (default /etc/oj/ojd.yaml), overridden by OJ_*
environment variables (OJ_POSTGRES_URL, OJ_REDIS_ADDR, ...), overridden by flags.`,
		SilenceUsage:  true,
		SilenceErrors: false,
	}
	root.PersistentFlags().String("config", "/etc/oj/ojd.yaml", "configuration file (missing is fine when every setting comes from the environment)")
	root.AddCommand(
		newAllCmd(),
		newAPICmd(),
		newDispatcherCmd(),
		newWorkerCmd(),
		newMigrateCmd(),
		newTokenCmd(),
		newConfigCmd(),
		newSandboxCmd(),
		newLanguagesCmd(),
	)
	return root
}
