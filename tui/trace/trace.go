// Package trace renders a submission's trace (GET /admin/v1/submissions/{id}/trace) for
// the detail pane of the Submissions and DLQ views: the submission, each attempt, and the
// history of events with who asked.
package trace

import (
	"fmt"
	"strings"
	"time"

	"oj/core/api/wire"
	"oj/tui/shared"
	"oj/tui/styles"
)

// Render returns the trace as lines fitting width columns.
func Render(st styles.Styles, t *wire.Trace, width int) string {
	var b strings.Builder
	s := t.Submission
	line := func(label, value string) {
		fmt.Fprintf(&b, "%s %s\n", st.Label.Render(fmt.Sprintf("%-10s", label)), shared.OneLine(value, max(10, width-12)))
	}
	line("id", s.ID)
	line("problem", fmt.Sprintf("%s v%d   language %s   lane %s", s.ProblemID, s.ProblemVersion, s.Language, s.Lane))
	verdict := "-"
	if s.Verdict != nil {
		verdict = *s.Verdict
	}
	line("state", fmt.Sprintf("%s   verdict %s   attempt %d   failures %d/%d", s.State, verdict, s.Attempt, s.Failures, s.MaxAttempts))
	if s.LeaseOwner != "" {
		until := ""
		if s.LeaseUntil != nil {
			until = " until " + stamp(*s.LeaseUntil)
		}
		line("lease", s.LeaseOwner+until)
	}
	if s.LastError != "" {
		line("last error", s.LastError)
	}
	if t.DeadLetter != nil {
		line("dead", fmt.Sprintf("since %s after %d attempts: %s", stamp(t.DeadLetter.DeadSince), t.DeadLetter.Attempts, t.DeadLetter.LastError))
	}
	b.WriteString("\n" + st.Section.Render("Attempts") + "\n")
	if len(t.Attempts) == 0 {
		b.WriteString(st.Muted.Render("  none yet") + "\n")
	}
	for _, a := range t.Attempts {
		out := a.Outcome
		if out == "" {
			out = "running"
		}
		if a.Verdict != "" {
			out += " " + a.Verdict
		}
		if a.Error != "" {
			out += ": " + a.Error
		}
		b.WriteString(shared.OneLine(fmt.Sprintf("  #%-2d %-14s %s → %s  %s", a.Attempt, orDash(a.Worker), stampp(a.ClaimedAt), stampp(a.EndedAt), out), width) + "\n")
	}
	b.WriteString("\n" + st.Section.Render("History") + "\n")
	if len(t.Events) == 0 {
		b.WriteString(st.Muted.Render("  no events") + "\n")
	}
	for _, e := range t.Events {
		who := e.Worker
		if e.Actor != "" {
			who = "by " + e.Actor
		}
		b.WriteString(shared.OneLine(fmt.Sprintf("  %s  %-13s #%-2d %s %s", stamp(e.At), e.Event, e.Attempt, who, e.Detail), width) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func stamp(t time.Time) string { return t.UTC().Format("15:04:05") }

func stampp(t *time.Time) string {
	if t == nil {
		return "--:--:--"
	}
	return stamp(*t)
}
