package main

import (
	"github.com/spf13/cobra"

	"oj/core/wire"
)

func newLanguagesCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "languages",
		Short: "The languages the server judges",
		Long: `List the configured languages: id (what --lang takes), name, lane (light for
interpreted, heavy for compiled), the source file name and whether it is compiled.`,
		Example: `  ojctl languages
  ojctl languages -o json | jq -r '.languages[].id'`,
		Args: cobra.NoArgs,
		RunE: a.run(func(cmd *cobra.Command, _ []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			langs, err := c.Languages(cmd.Context())
			if err != nil {
				return err
			}
			if langs == nil {
				langs = []wire.Language{}
			}
			return a.print(wire.Languages{Languages: langs}, func(p *printer) {
				rows := make([][]string, 0, len(langs))
				for _, l := range langs {
					rows = append(rows, []string{l.ID, l.Name, l.Lane, l.SourceFile, yesNo(l.Compiled)})
				}
				p.table([]string{"ID", "NAME", "LANE", "SOURCE FILE", "COMPILED"}, rows)
			})
		}),
	}
}
