package main

import (
	"database/sql"
	"fmt"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx" for goose
	"github.com/spf13/cobra"

	"oj/sql/migrations"
)

func newMigrateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply or show the database migrations",
	}
	// withDB runs do on the configured database, closed after.
	withDB := func(do func(cmd *cobra.Command, db *sql.DB) error) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			db, err := sql.Open("pgx", cfg.Postgres.URL)
			if err != nil {
				return fmt.Errorf("postgres: %w", err)
			}
			defer db.Close()
			return do(cmd, db)
		}
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "up",
		Short: "Apply every pending migration",
		Args:  cobra.NoArgs,
		RunE: withDB(func(cmd *cobra.Command, db *sql.DB) error {
			if err := migrations.Up(cmd.Context(), db); err != nil {
				return err
			}
			return migrations.Status(cmd.Context(), db, cmd.OutOrStdout())
		}),
	}, &cobra.Command{
		Use:   "status",
		Short: "List the migrations and whether each is applied",
		Args:  cobra.NoArgs,
		RunE: withDB(func(cmd *cobra.Command, db *sql.DB) error {
			return migrations.Status(cmd.Context(), db, cmd.OutOrStdout())
		}),
	})
	return cmd
}
