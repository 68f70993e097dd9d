package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"oj/core/wire"
)

func newProblemListCmd(a *app) *cobra.Command {
	var archived string
	cmd := &cobra.Command{
		Use:     "ls [--archived all|true|false]",
		Aliases: []string{"list"},
		Short:   "List problems with their latest version, format, limits and verify status",
		Long: `List every problem (admin or reader token), ordered by id: its latest version,
title, the format its package came in (oj, kattis, polygon), case count, time limit
("~" while it is provisional: a verify derives it from the package's accepted
submissions), memory limit, how many submissions users made (a verification's are
not counted), its latest verification (passed or failed with "N as labeled, M not",
running, or none), since when it is archived (if it is) and when its latest version
was uploaded.

Archived problems are listed too, flagged; --archived false lists only the live
ones, --archived true only the archived ones. "ojctl problem show" answers "not
found" for an archived problem: it takes no submissions until it is pushed again.`,
		Example: `  ojctl problem ls
  ojctl problem ls --archived true
  ojctl problem ls -o json | jq -r '.items[] | select(.submissions == 0) | .id'`,
		Args: cobra.NoArgs,
		RunE: a.run(func(cmd *cobra.Command, _ []string) error {
			switch archived {
			case "all", "true", "false":
			default:
				return usagef("--archived %q: want all, true or false", archived)
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			list, err := c.Problems(cmd.Context(), archived)
			if err != nil {
				return err
			}
			if list.Items == nil {
				list.Items = []wire.ProblemSummary{}
			}
			return a.print(list, func(p *printer) {
				rows := make([][]string, 0, len(list.Items))
				nArchived := 0
				for _, pr := range list.Items {
					arch := "no"
					if pr.Archived {
						arch, nArchived = "since "+stampPtr(pr.ArchivedAt), nArchived+1
					}
					limit := itoa(pr.TimeLimitMS) + " ms"
					if pr.TimeLimitProvisional {
						limit = "~" + limit
					}
					verify := "-"
					if pr.Verify != nil {
						verify = pr.Verify.State
						if pr.Verify.Summary != "" {
							verify += ": " + pr.Verify.Summary
						}
					}
					rows = append(rows, []string{pr.ID, pr.Title, itoa(pr.Version), pr.Format, itoa(pr.CaseCount), limit,
						itoa(pr.MemoryLimitMB) + " MiB", itoa(pr.Submissions), verify, arch, stamp(pr.UpdatedAt)})
				}
				p.table([]string{"ID", "TITLE", "VERSION", "FORMAT", "CASES", "TIME", "MEMORY", "SUBMISSIONS", "VERIFY", "ARCHIVED", "UPDATED"}, rows)
				p.printf("%s, %d archived\n", plural(len(list.Items), "problem"), nArchived)
			})
		}),
	}
	cmd.Flags().StringVar(&archived, "archived", "all", "all, true (archived only) or false (live only)")
	return cmd
}

func newProblemRemoveCmd(a *app) *cobra.Command {
	var s safety
	cmd := &cobra.Command{
		Use:     "rm P [--dry-run] [--yes]",
		Aliases: []string{"remove"},
		Short:   "Remove a problem: archive it if it has submissions, else delete it",
		Long: `Remove problem P (admin token; audited).

A problem with submissions is archived, not deleted: new submissions to it and
"ojctl problem show P" answer "not found" as for an unknown problem, while its
existing submissions keep their results, finish judging and can be rejudged (their
package version is kept). "ojctl problem ls" still lists it, flagged. Pushing the
problem again brings it back as a new version.

A problem without submissions is deleted with its versions. The package files stay
in the object store: they are stored by content, and another problem may share them.

On a terminal it shows what would happen and asks y/N; without a terminal pass
--yes. --dry-run says what would happen and changes nothing.`,
		Example: `  ojctl problem rm aplusb --dry-run
  ojctl problem rm aplusb
  ojctl problem rm old-draft --yes -o json`,
		Args: cobra.ExactArgs(1),
		RunE: a.run(func(cmd *cobra.Command, args []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			ctx, id := cmd.Context(), args[0]
			if !s.dryRun && !s.yes && !a.stdinTTY {
				return usagef("refusing to remove problem %s without confirmation: stdin is not a terminal; pass --yes to proceed (or --dry-run to see what would happen)", id)
			}
			if s.dryRun || !s.yes {
				r, err := c.RemoveProblem(ctx, id, true)
				if err != nil {
					return err
				}
				if s.dryRun {
					return a.print(r, func(p *printer) { p.printf("dry run: would %s; nothing changed\n", removal(r, false)) })
				}
				ok, err := a.confirm(ctx, fmt.Sprintf("%s? [y/N] ", removal(r, false)))
				if err != nil {
					return err
				}
				if !ok {
					return usagef("not confirmed: nothing changed")
				}
			}
			r, err := c.RemoveProblem(ctx, id, false)
			if err != nil {
				return err
			}
			return a.print(r, func(p *printer) { p.printf("%s\n", removal(r, true)) })
		}),
	}
	s.register(cmd)
	return cmd
}

// removal says what a problem removal did ("archived aplusb (12 submissions kept)",
// "deleted aplusb") or, with done false, what it would do ("archive aplusb (…)").
func removal(r *wire.ProblemRemoved, done bool) string {
	verb := r.Action // "archived" or "deleted"
	if !done {
		verb = strings.TrimSuffix(verb, "d")
	}
	if r.Action == "archived" {
		return fmt.Sprintf("%s %s (%s kept)", verb, r.ID, plural(int(r.Submissions), "submission"))
	}
	return verb + " " + r.ID
}

// plural is n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
