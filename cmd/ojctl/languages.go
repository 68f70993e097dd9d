package main

import (
	"github.com/spf13/cobra"

	"oj/core/api/client"
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
		RunE: fetched(a, func(cmd *cobra.Command, c *client.Client, _ []string) (wire.Languages, error) {
			langs, err := c.Languages(cmd.Context())
			if langs == nil {
				langs = []wire.Language{}
			}
			return wire.Languages{Languages: langs}, err
		}, func(p *printer, langs wire.Languages) {
			rows := make([][]string, 0, len(langs.Languages))
			for _, l := range langs.Languages {
				rows = append(rows, []string{l.ID, l.Name, l.Lane, l.SourceFile, yesNo(l.Compiled)})
			}
			p.table([]string{"ID", "NAME", "LANE", "SOURCE FILE", "COMPILED"}, rows)
		}),
	}
}
