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
	return deadLetterCmd(a, &cobra.Command{
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
	}, "replay every dead letter", "replay dead letters",
		func(ctx context.Context, c *client.Client, ids []string, all, dry bool) (*wire.ReplayResult, error) {
			return c.ReplayDLQ(ctx, wire.ReplayRequest{IDs: ids, All: all, DryRun: dry})
		}, func(r *wire.ReplayResult) effect {
			n, row := doneOrWould(r.DryRun, "Replayed", "Would replay", r.Replayed, r.WouldReplay)
			return effect{changes: n, requested: r.Requested, fields: [][2]string{{"Requested", itoa(r.Requested)}, row}}
		})
}

func newDLQPurgeCmd(a *app) *cobra.Command {
	return deadLetterCmd(a, &cobra.Command{
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
	}, "purge every dead letter", "purge dead letters",
		func(ctx context.Context, c *client.Client, ids []string, all, dry bool) (*wire.PurgeResult, error) {
			return c.PurgeDLQ(ctx, wire.PurgeRequest{IDs: ids, All: all, DryRun: dry})
		}, func(r *wire.PurgeResult) effect {
			n, row := doneOrWould(r.DryRun, "Purged", "Would purge", r.Purged, r.WouldPurge)
			return effect{changes: n, requested: r.Requested, fields: [][2]string{{"Requested", itoa(r.Requested)}, row}}
		})
}

// deadLetterCmd makes cmd (its words given) an action on the dead letters named by id or
// --all (allHelp): call asks the server, effectOf reads the counts from its answer.
func deadLetterCmd[R any](a *app, cmd *cobra.Command, allHelp, verb string,
	call func(ctx context.Context, c *client.Client, ids []string, all, dry bool) (R, error),
	effectOf func(R) effect) *cobra.Command {
	var (
		all bool
		s   safety
	)
	cmd.Args = idsOrAll(&all)
	cmd.RunE = a.act(&s, func(_ *cobra.Command, c *client.Client, args []string) (mutation, error) {
		return mutation{verb: verb, noun: "dead letters",
			call: answered(func(ctx context.Context, dry bool) (R, error) { return call(ctx, c, args, all, dry) },
				func(r R, _ bool) effect { return effectOf(r) })}, nil
	})
	cmd.Flags().BoolVar(&all, "all", false, allHelp)
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
