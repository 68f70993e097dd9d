package main

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"oj/core/wire"
)

func newLanguagesCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "languages",
		Short: "The languages the server judges",
		Long: `List the configured languages: id (what --lang takes), name — with the
version a live worker's self-check detected (PyPy 7.3.11), without one while no worker
announced it —, lane (light for interpreted, heavy for compiled), the time and memory
factors, and the compile and run commands as configured ({src}, {memory_mb}… are
filled in per submission; docs/languages.md lists them). -o json has each field.`,
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
					compile := strings.Join(l.Compile, " ")
					if compile == "" {
						compile = "-"
					}
					rows = append(rows, []string{l.ID, l.Name, l.Lane, factors(l.TimeFactor, l.MemoryFactor),
						compile, strings.Join(l.Run, " ")})
				}
				p.table([]string{"ID", "NAME", "LANE", "TIME×/MEM×", "COMPILE", "RUN"}, rows)
			})
		}),
	}
}

// factors shows a language's time and memory factors, as 2/1.5.
func factors(t, m float64) string {
	return strconv.FormatFloat(t, 'g', -1, 64) + "/" + strconv.FormatFloat(m, 'g', -1, 64)
}
