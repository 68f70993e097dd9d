package main

import (
	"github.com/spf13/cobra"

	"oj/core/wire"
)

func newRunStatusCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "run-status ID",
		Short: "Show a run: its face, Judge0 token, limits and each input's result",
		Long: `Show a run (the Run button's, or a Judge0 submission: both are runs) as
GET /api/v1/runs/{id} returns it: the face it came through (api or judge0) and the
token that face handed out for it (a Judge0 submission's token), its state, limits,
compile output and each input's status, exit, time, memory and output. A user token
sees its own runs; an admin token sees all.`,
		Example: `  ojctl run-status 0190a3c4-...
  ojctl run-status 0190a3c4-... -o json | jq -r .public_token`,
		Args: cobra.ExactArgs(1),
		RunE: a.run(func(cmd *cobra.Command, args []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			run, err := c.GetRun(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.print(run, func(p *printer) { printRunStatus(p, run) })
		}),
	}
}

// printRunStatus is a run as a table: its fields, then one row per input.
func printRunStatus(p *printer, run *wire.Run) {
	verdict := "-"
	if run.Verdict != nil {
		verdict = *run.Verdict
	}
	fields := [][2]string{{"Run", run.ID}, {"Origin", run.Origin}}
	if run.PublicToken != "" {
		fields = append(fields, [2]string{"Token", run.PublicToken})
	}
	fields = append(fields, [][2]string{{"Language", run.Language}, {"State", run.State}, {"Verdict", verdict},
		{"Attempt", itoa(run.Attempt)}, {"Limits", ms(int64(run.Limits.TimeMS)) + " CPU · " + itoa(run.Limits.MemoryMB) +
			" MiB · " + itoa(run.Limits.OutputBytes) + " B of output"}, {"Created", stamp(run.CreatedAt)}}...)
	if run.FinishedAt != nil {
		fields = append(fields, [2]string{"Finished", stamp(*run.FinishedAt)})
	}
	if run.Error != "" {
		fields = append(fields, [2]string{"Error", run.Error})
	}
	p.fields(fields)
	if run.CompileOutput != "" {
		p.heading("Compile output")
		p.printf("%s\n", run.CompileOutput)
	}
	if len(run.Results) == 0 {
		return
	}
	rows := make([][]string, 0, len(run.Results))
	for _, r := range run.Results {
		rows = append(rows, []string{itoa(r.Index), r.Status, itoa(r.ExitCode), itoa(r.Signal), ms(int64(r.TimeMS)),
			ms(int64(r.WallMS)), itoa(r.MemoryKB) + " KiB", clipLine(r.Stdout, 40), orDash(r.Message)})
	}
	p.table([]string{"INPUT", "STATUS", "EXIT", "SIGNAL", "TIME", "WALL", "MEMORY", "STDOUT", "MESSAGE"}, rows)
}
