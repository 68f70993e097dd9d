package main

import (
	"context"

	"github.com/spf13/cobra"

	"oj/core/api/client"
	"oj/core/wire"
)

func newDLQCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dlq",
		Short: "Dead letters: submissions that failed for good",
		Long: `A submission whose judging failed max_attempts times (system errors, not wrong
answers) is dead: verdict SE, a dead letter in PostgreSQL. Dead letters are never
dropped silently; "dlq replay" judges them again with a fresh attempt budget, and
"dlq purge" removes them for good, leaving the submissions dead. Both are audited.`,
		Example: `  ojctl dlq ls
  ojctl dlq replay --all --dry-run
  ojctl dlq replay 0190a3c4-... 0190a3c5-...
  ojctl dlq purge 0190a3c4-... --dry-run`,
	}
	cmd.AddCommand(newDLQListCmd(a), newDLQReplayCmd(a), newDLQPurgeCmd(a))
	return cmd
}

func newDLQListCmd(a *app) *cobra.Command {
	var (
		limit  int
		cursor string
	)
	cmd := &cobra.Command{
		Use:     "ls [--limit N] [--cursor C]",
		Aliases: []string{"list"},
		Short:   "List dead letters, oldest first",
		Long: `List dead letters, oldest first: submission, lane, attempts, last error and since
when it is dead. One page per call; the JSON's next_cursor (empty on the last page)
goes to --cursor for the next. "ojctl trace ID" shows why each attempt failed.`,
		Example: `  ojctl dlq ls
  ojctl dlq ls --limit 500 -o json | jq -r '.items[].submission_id'`,
		Args: cobra.NoArgs,
		RunE: fetched(a, func(cmd *cobra.Command, c *client.Client, _ []string) (*wire.DLQ, error) {
			page, err := c.DLQ(cmd.Context(), limit, cursor)
			if err != nil {
				return nil, err
			}
			if page.Items == nil {
				page.Items = []wire.DeadLetter{}
			}
			return page, nil
		}, func(p *printer, page *wire.DLQ) {
			rows := make([][]string, 0, len(page.Items))
			for _, d := range page.Items {
				rows = append(rows, []string{d.SubmissionID, d.Lane, itoa(d.Attempts), stamp(d.DeadSince), d.LastError})
			}
			p.table([]string{"SUBMISSION", "LANE", "ATTEMPTS", "DEAD SINCE", "LAST ERROR"}, rows)
			p.printf("%d of %d dead letters", len(page.Items), page.Total)
			if page.NextCursor != "" {
				p.printf("; next page: --cursor %s", page.NextCursor)
			}
			p.printf("\n")
		}),
	}
	cmd.Flags().IntVar(&limit, "limit", 0, "at most this many (default: the server's)")
	cmd.Flags().StringVar(&cursor, "cursor", "", "the next_cursor of the previous page")
	return cmd
}

func newDLQReplayCmd(a *app) *cobra.Command {
	var (
		all bool
		s   safety
	)
	cmd := &cobra.Command{
		Use:   "replay (ID... | --all) [--dry-run] [--yes]",
		Short: "Judge dead letters again",
		Long: `Replay dead letters: each gets a fresh failure budget and a new attempt through the
outbox (never a raw stream write), its dead letter is removed, and its trace and the
audit log record who replayed it. Fix the cause first ("ojctl trace ID" says what it
was), or the replay dies again.

Exit code 3 when fewer were replayed than asked for (some ids were not dead letters).`,
		Example: `  ojctl dlq replay --all --dry-run
  ojctl dlq replay 0190a3c4-... 0190a3c5-...
  ojctl dlq replay --all --yes -o json      # from cron`,
		Args: idsOrAll(&all),
		RunE: a.act(&s, func(_ *cobra.Command, c *client.Client, args []string) (mutation, error) {
			req := wire.ReplayRequest{IDs: args, All: all}
			return mutation{verb: "replay dead letters", noun: "dead letters",
				call: answered(func(ctx context.Context, dry bool) (*wire.ReplayResult, error) {
					req.DryRun = dry
					return c.ReplayDLQ(ctx, req)
				}, func(r *wire.ReplayResult, _ bool) effect {
					n, row := doneOrWould(r.DryRun, "Replayed", "Would replay", r.Replayed, r.WouldReplay)
					return effect{changes: n, requested: r.Requested, fields: [][2]string{{"Requested", itoa(r.Requested)}, row}}
				})}, nil
		}),
	}
	cmd.Flags().BoolVar(&all, "all", false, "replay every dead letter")
	s.register(cmd)
	return cmd
}

func newDLQPurgeCmd(a *app) *cobra.Command {
	var (
		all bool
		s   safety
	)
	cmd := &cobra.Command{
		Use:   "purge (ID... | --all) [--dry-run] [--yes]",
		Short: "Remove dead letters without judging them again",
		Long: `Purge dead letters: they leave the dead-letter list (and its count in the
overview) for good. Their submissions are not judged again: they stay dead with
verdict SE and the error that killed them, and their trace and the audit log record
who purged them. Purge what you decided not to replay, e.g. submissions of a
language or problem that is gone; to judge them again use "dlq replay" instead.

Exit code 3 when fewer were purged than asked for (some ids were not dead letters).`,
		Example: `  ojctl dlq purge --all --dry-run
  ojctl dlq purge 0190a3c4-... 0190a3c5-...
  ojctl dlq ls -o json \
    | jq -r '.items[] | select(.last_error | test("unknown language")) | .submission_id' \
    | xargs -r ojctl dlq purge --yes`,
		Args: idsOrAll(&all),
		RunE: a.act(&s, func(_ *cobra.Command, c *client.Client, args []string) (mutation, error) {
			req := wire.PurgeRequest{IDs: args, All: all}
			return mutation{verb: "purge dead letters", noun: "dead letters",
				call: answered(func(ctx context.Context, dry bool) (*wire.PurgeResult, error) {
					req.DryRun = dry
					return c.PurgeDLQ(ctx, req)
				}, func(r *wire.PurgeResult, _ bool) effect {
					n, row := doneOrWould(r.DryRun, "Purged", "Would purge", r.Purged, r.WouldPurge)
					return effect{changes: n, requested: r.Requested, fields: [][2]string{{"Requested", itoa(r.Requested)}, row}}
				})}, nil
		}),
	}
	cmd.Flags().BoolVar(&all, "all", false, "purge every dead letter")
	s.register(cmd)
	return cmd
}

// idsOrAll checks that a dead-letter action names its dead letters by id or with --all,
// not both and not neither.
func idsOrAll(all *bool) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if *all == (len(args) > 0) {
			return usagef("give the dead letters' submission ids, or --all (one of the two)")
		}
		return nil
	}
}
