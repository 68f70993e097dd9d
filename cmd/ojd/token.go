package main

import (
	"context"
	"fmt"
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
		Use:   "create --name NAME --role user|admin",
		Short: "Create a token; the token itself is printed as the last line",
		Args:  cobra.NoArgs,
	}
	name := create.Flags().String("name", "", "a unique name for the token's holder (required)")
	role := create.Flags().String("role", "user", "user or admin")
	_ = create.MarkFlagRequired("name")
	create.RunE = func(cmd *cobra.Command, _ []string) error {
		if *role != "user" && *role != "admin" {
			return fmt.Errorf("--role %q: want user or admin", *role)
		}
		return withStore(cmd, func(ctx context.Context, db store.DB) error {
			secret, err := store.CreateToken(ctx, db, *name, *role)
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
				fmt.Fprintln(tw, "ID\tNAME\tROLE\tCREATED\tREVOKED")
				for _, t := range toks {
					revoked := "-"
					if t.RevokedAt != nil {
						revoked = t.RevokedAt.Format("2006-01-02 15:04")
					}
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", t.ID, t.Name, t.Role, t.CreatedAt.Format("2006-01-02 15:04"), revoked)
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
