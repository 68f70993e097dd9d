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
	open := func(cmd *cobra.Command) (*sql.DB, error) {
		cfg, err := loadConfig(cmd)
		if err != nil {
			return nil, err
		}
		db, err := sql.Open("pgx", cfg.Postgres.URL)
		if err != nil {
			return nil, fmt.Errorf("postgres: %w", err)
		}
		return db, nil
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "up",
		Short: "Apply every pending migration",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := open(cmd)
			if err != nil {
				return err
			}
			defer db.Close()
			if err := migrations.Up(cmd.Context(), db); err != nil {
				return err
			}
			return migrations.Status(cmd.Context(), db, cmd.OutOrStdout())
		},
	}, &cobra.Command{
		Use:   "status",
		Short: "List the migrations and whether each is applied",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := open(cmd)
			if err != nil {
				return err
			}
			defer db.Close()
			return migrations.Status(cmd.Context(), db, cmd.OutOrStdout())
		},
	})
	return cmd
}
