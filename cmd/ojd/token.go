package main

import (
	"context"
	"fmt"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"oj/core/store"
)

func newTokenCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Create, list and revoke API tokens",
		Long: `API tokens authenticate HTTP clients (Authorization: Bearer <token>). A user token
submits and reads its own submissions; an admin token also reaches /admin/v1 (ojctl).
Only a hash of each token is stored: the token is shown once, when created.`,
	}
	withStore := func(cmd *cobra.Command, fn func(ctx context.Context, db store.DB) error) error {
		cfg, err := loadConfig(cmd)
		if err != nil {
			return err
		}
		d, err := connect(cmd.Context(), cfg)
		if err != nil {
			return err
		}
		defer d.Close()
		return fn(cmd.Context(), d.db)
	}
	create := &cobra.Command{
		Use:   "create --name NAME --role user|reader|admin [--rate R] [--burst B] [--max-live N] [--run-max-live N]",
		Short: "Create a token; the token itself is printed as the last line",
		Long: `Create an API token. Roles: user (submits, reads its own submissions), reader (reads
every submission, the results feed and the problems, changes nothing: what a site's
backend follows results with), admin (everything, and /admin/v1). A token may carry its
own submit bounds, over api.limits' defaults: --rate submits per second and --burst, and
--max-live submissions queued or running at once (a site submitting for all its users
through one token needs more than one contestant), and --run-max-live runs queued or
running at once (api.limits.run_max_live_per_user otherwise). Admins can do the same over the API
(ojctl token create), without access to PostgreSQL.`,
		Example: `  ojd token create --name alice --role user
  ojd token create --name site-backend --role reader
  ojd token create --name site-submitter --role user --rate 50 --burst 200 --max-live 2000 --run-max-live 200`,
		Args: cobra.NoArgs,
	}
	name := create.Flags().String("name", "", "a unique name for the token's holder (required)")
	role := create.Flags().String("role", "user", "user, reader or admin")
	rate := create.Flags().Float64("rate", -1, "the token's own submits per second (0: no bucket; default: api.limits.user_rate)")
	burst := create.Flags().Int("burst", 0, "the token's own burst (default: api.limits.user_burst)")
	maxLive := create.Flags().Int("max-live", -1, "the token's own bound on submissions queued or running (0: none; default: the role's)")
	runMaxLive := create.Flags().Int("run-max-live", -1, "the token's own bound on runs queued or running (0: none; default: api.limits.run_max_live_per_user)")
	_ = create.MarkFlagRequired("name")
	create.RunE = func(cmd *cobra.Command, _ []string) error {
		if !slices.Contains(store.Roles, *role) {
			return fmt.Errorf("--role %q: want user, reader or admin", *role)
		}
		nt := store.NewToken{Name: *name, Role: *role}
		if cmd.Flags().Changed("rate") {
			if *rate < 0 {
				return fmt.Errorf("--rate %v: must not be negative", *rate)
			}
			nt.SubmitRate = rate
		}
		if cmd.Flags().Changed("burst") {
			if *burst < 1 {
				return fmt.Errorf("--burst %d: must be at least 1", *burst)
			}
			nt.SubmitBurst = burst
		}
		if cmd.Flags().Changed("max-live") {
			if *maxLive < 0 {
				return fmt.Errorf("--max-live %d: must not be negative", *maxLive)
			}
			nt.MaxLive = maxLive
		}
		if cmd.Flags().Changed("run-max-live") {
			if *runMaxLive < 0 {
				return fmt.Errorf("--run-max-live %d: must not be negative", *runMaxLive)
			}
			nt.RunMaxLive = runMaxLive
		}
		if *role == "reader" && (nt.SubmitRate != nil || nt.SubmitBurst != nil || nt.MaxLive != nil || nt.RunMaxLive != nil) {
			return fmt.Errorf("a reader token submits and runs nothing: it takes no --rate, --burst, --max-live or --run-max-live")
		}
		return withStore(cmd, func(ctx context.Context, db store.DB) error {
			secret, _, err := store.CreateTokenWith(ctx, db, nt)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "created %s token %q; it is shown only now:\n%s\n", *role, *name, secret)
			return nil
		})
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List tokens (names and roles; never the tokens)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd, func(ctx context.Context, db store.DB) error {
				toks, err := store.ListTokens(ctx, db)
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tNAME\tROLE\tRATE\tBURST\tMAX LIVE\tRUN MAX LIVE\tCREATED\tREVOKED")
				for _, t := range toks {
					revoked := "-"
					if t.RevokedAt != nil {
						revoked = t.RevokedAt.Format("2006-01-02 15:04")
					}
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Name, t.Role, orDefault(t.SubmitRate),
						orDefault(t.SubmitBurst), orDefault(t.MaxLive), orDefault(t.RunMaxLive), t.CreatedAt.Format("2006-01-02 15:04"), revoked)
				}
				return tw.Flush()
			})
		},
	}
	revoke := &cobra.Command{
		Use:   "revoke NAME",
		Short: "Revoke the token called NAME",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd, func(ctx context.Context, db store.DB) error {
				if err := store.RevokeToken(ctx, db, args[0]); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "revoked %q\n", args[0])
				return nil
			})
		},
	}
	cmd.AddCommand(create, list, revoke)
	return cmd
}

// orDefault shows a token's own setting, or "default" for none.
func orDefault[T int | float64](v *T) string {
	if v == nil {
		return "default"
	}
	return fmt.Sprint(*v)
}
