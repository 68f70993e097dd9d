package main

import (
	"strconv"

	"github.com/spf13/cobra"

	"oj/core/api/client"
	"oj/core/wire"
)

func newSubmissionsCmd(a *app) *cobra.Command {
	var q wire.ListSubmissionsQuery
	var meta []string
	cmd := &cobra.Command{
		Use:     "submissions [--state S] [--problem P] [--owner NAME] [--meta k=v]… [--purpose user|verify|all] [--limit N] [--cursor C]",
		Aliases: []string{"subs"},
		Short:   "List recent submissions, newest first",
		Long: `List submissions, newest first: id, problem, language, state, verdict, score,
attempt, time, memory, who submitted it and when. A user token lists its own; a reader
or admin token every submission. --state (queued, running, finished, dead, canceled),
--problem, --owner (a token's name) and --meta key=value (the submitter's metadata;
repeatable, all must match) narrow the list. A problem verification's submissions
(the package's labeled sources, judged by "ojctl problem verify") count for no user and
are listed only with --purpose verify or all. One page per call (default 50, at most
500); the JSON's next_cursor (empty on the last page) goes to --cursor for the next.
"ojctl status ID" shows one submission's cases, "ojctl trace ID" its history.`,
		Example: `  ojctl submissions
  ojctl submissions --state running
  ojctl submissions --meta contest=icpc-2026 --owner site-submitter
  ojctl submissions --purpose verify --problem different
  ojctl submissions --problem aplusb --state finished --limit 500 -o json | jq -r '.items[].id'`,
		Args: cobra.NoArgs,
		RunE: fetched(a, func(cmd *cobra.Command, c *client.Client, _ []string) (*wire.SubmissionList, error) {
			var err error
			if q.Metadata, err = parseMeta(meta); err != nil {
				return nil, err
			}
			page, err := c.MySubmissions(cmd.Context(), q)
			if err != nil {
				return nil, err
			}
			if page.Items == nil {
				page.Items = []wire.SubmissionSummary{}
			}
			return page, nil
		}, func(p *printer, page *wire.SubmissionList) {
			rows := make([][]string, 0, len(page.Items))
			for _, s := range page.Items {
				score, run, mem := "-", "-", "-"
				if s.Score != nil {
					score = strconv.FormatFloat(*s.Score, 'f', -1, 64)
				}
				if s.TimeMS != nil {
					run = ms(int64(*s.TimeMS))
				}
				if s.MemoryKB != nil {
					mem = itoa(*s.MemoryKB) + " KiB"
				}
				rows = append(rows, []string{s.ID, s.ProblemID, s.Language, s.State, ptrOr(s.Verdict, "-"),
					score, itoa(s.Attempt), run, mem, orDash(s.Owner), stamp(s.CreatedAt)})
			}
			p.table([]string{"SUBMISSION", "PROBLEM", "LANGUAGE", "STATE", "VERDICT", "SCORE", "ATTEMPT",
				"TIME", "MEMORY", "OWNER", "SUBMITTED"}, rows)
			p.printf("%d submissions", len(page.Items))
			if page.NextCursor != "" {
				p.printf("; next page: --cursor %s", page.NextCursor)
			}
			p.printf("\n")
		}),
	}
	cmd.Flags().StringVar(&q.State, "state", "", "only this state: queued, running, finished, dead or canceled")
	cmd.Flags().StringVar(&q.ProblemID, "problem", "", "only this problem's submissions")
	cmd.Flags().StringVar(&q.Owner, "owner", "", "only the submissions of the token with this name (reader and admin tokens)")
	cmd.Flags().StringArrayVar(&meta, "meta", nil, "only submissions carrying this metadata, key=value (repeatable)")
	cmd.Flags().StringVar(&q.Purpose, "purpose", "", "user (default), verify (a problem verification's) or all")
	cmd.Flags().IntVar(&q.Limit, "limit", 0, "at most this many (default: the server's, 50; at most 500)")
	cmd.Flags().StringVar(&q.Cursor, "cursor", "", "the next_cursor of the previous page")
	return cmd
}
