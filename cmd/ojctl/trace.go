package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"oj/core/api/client"
	"oj/core/wire"
)

func newTraceCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "trace ID",
		Short: "A submission's history: attempts, reclaims, dead-lettering, replays",
		Long: `Answer "why was this judged twice?" in one command: the submission's every attempt
(the worker, when it claimed and ended, the outcome or error), its reclaims, its
dead-lettering with the reason, and the replays, rejudges and cancels with the admin
who asked, as one timeline.`,
		Example: `  ojctl trace 0190a3c4-...
  ojctl trace 0190a3c4-... -o json | jq '.attempts[] | {attempt, worker, outcome, error}'`,
		Args: cobra.ExactArgs(1),
		RunE: fetched(a, func(cmd *cobra.Command, c *client.Client, args []string) (*wire.Trace, error) {
			t, err := c.Trace(cmd.Context(), args[0])
			if err != nil {
				return nil, err
			}
			if t.Attempts == nil {
				t.Attempts = []wire.TraceAttempt{}
			}
			if t.Events == nil {
				t.Events = []wire.TraceEvent{}
			}
			return t, nil
		}, printTrace),
	}
}

func printTrace(p *printer, t *wire.Trace) {
	s := t.Submission
	lease := "-"
	if s.LeaseOwner != "" {
		lease = s.LeaseOwner + " until " + stampPtr(s.LeaseUntil)
	}
	owner := "-"
	if s.OwnerID != nil {
		owner = fmt.Sprintf("token %d", *s.OwnerID)
		if s.Owner != "" {
			owner = fmt.Sprintf("%s (token %d)", s.Owner, *s.OwnerID)
		}
	}
	fields := [][2]string{
		{"Submission", s.ID},
		{"Problem", fmt.Sprintf("%s (version %d), %s, lane %s", s.ProblemID, s.ProblemVersion, s.Language, s.Lane)},
		{"State", s.State},
		{"Verdict", ptrOr(s.Verdict, "-")},
		{"Attempt", fmt.Sprintf("%d (failures %d of %d allowed)", s.Attempt, s.Failures, s.MaxAttempts)},
		{"Lease", lease},
		{"Owner", owner},
		{"Queued", stamp(s.QueuedAt)},
		{"Started", stampPtr(s.StartedAt)},
		{"Finished", stampPtr(s.FinishedAt)},
		{"Trace id", s.TraceID},
	}
	if s.Waiting != "" {
		fields = append(fields, [2]string{"Waiting", s.Waiting})
	}
	if s.LastError != "" {
		fields = append(fields, [2]string{"Last error", s.LastError})
	}
	if s.Score != nil {
		fields = append(fields, [2]string{"Score", fmt.Sprint(*s.Score)})
	}
	p.fields(fields)
	printGroups(p, s.Groups)

	p.heading("Attempts")
	rows := make([][]string, 0, len(t.Attempts))
	for _, at := range t.Attempts {
		took := "-"
		if at.ClaimedAt != nil && at.EndedAt != nil {
			took = ms(at.EndedAt.Sub(*at.ClaimedAt).Milliseconds())
		}
		outcome := at.Outcome
		if outcome == "" {
			outcome = "running"
		}
		if at.Reclaimed && outcome != "reclaimed" {
			outcome += " (reclaimed)"
		}
		result := at.Verdict
		if at.Error != "" {
			result = at.Error
		}
		rows = append(rows, []string{itoa(at.Attempt), at.Worker, preciseStamp(at.ClaimedAt), preciseStamp(at.EndedAt), took, outcome, result})
	}
	p.table([]string{"#", "WORKER", "CLAIMED", "ENDED", "TOOK", "OUTCOME", "VERDICT / ERROR"}, rows)

	p.heading("Timeline")
	rows = rows[:0]
	for _, ev := range t.Events {
		attempt := "-"
		if ev.Attempt > 0 {
			attempt = itoa(ev.Attempt)
		}
		who := ev.Worker
		if ev.Actor != "" {
			who = "by " + ev.Actor
		}
		rows = append(rows, []string{preciseStamp(&ev.At), ev.Event, attempt, who, ev.Detail})
	}
	p.table([]string{"AT", "EVENT", "ATTEMPT", "WORKER / BY", "DETAIL"}, rows)

	if d := t.DeadLetter; d != nil {
		p.heading("Dead letter")
		p.fields([][2]string{
			{"Dead since", stamp(d.DeadSince)},
			{"Attempts", itoa(d.Attempts)},
			{"Reason", d.LastError},
			{"Replay", "ojctl dlq replay " + d.SubmissionID},
		})
	}
}

// preciseStamp keeps milliseconds: a timeline's events are often within one second.
func preciseStamp(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05.000")
}
