// Package trace renders a submission's trace (GET /admin/v1/submissions/{id}/trace) for
// the detail pane of the Submissions and DLQ views: the submission with its error and
// compile output, its cases, each attempt, and the history of events with who asked; and
// one case's output (GET /api/v1/submissions/{id}/cases/{n}). Long values wrap: nothing
// a reader needs is cut at the pane's edge.
package trace

import (
	"fmt"
	"strings"
	"time"

	"oj/core/wire"
	"oj/tui/shared"
	"oj/tui/styles"
)

// maxCompileLines bounds the compile output shown in the pane (ojctl status has it all).
const maxCompileLines = 40

// Render returns the trace as lines fitting width columns.
func Render(st styles.Styles, t *wire.Trace, width int) string {
	return RenderSelected(st, t, width, 0)
}

// RenderSelected is Render with case index sel marked in the cases table (0: none).
func RenderSelected(st styles.Styles, t *wire.Trace, width, sel int) string {
	var b strings.Builder
	s := t.Submission
	line := func(label, value string) {
		b.WriteString(hang(st.Label.Render(fmt.Sprintf("%-10s", label))+" ", value, width) + "\n")
	}
	line("id", s.ID)
	line("problem", fmt.Sprintf("%s v%d   language %s   lane %s", s.ProblemID, s.ProblemVersion, s.Language, s.Lane))
	verdict := "-"
	if s.Verdict != nil {
		verdict = *s.Verdict
	}
	line("state", fmt.Sprintf("%s   verdict %s   attempt %d   failures %d/%d", s.State, verdict, s.Attempt, s.Failures, s.MaxAttempts))
	if s.OwnerID != nil {
		owner := fmt.Sprintf("token %d", *s.OwnerID)
		if s.Owner != "" {
			owner = fmt.Sprintf("%s (token %d)", s.Owner, *s.OwnerID)
		}
		line("owner", owner)
	}
	if s.Waiting != "" {
		line("waiting", s.Waiting)
	}
	if s.Error != "" {
		line("error", s.Error)
	}
	if s.LastError != "" && s.LastError != s.Error {
		line("last error", s.LastError)
	}
	if s.LeaseOwner != "" {
		until := ""
		if s.LeaseUntil != nil {
			until = " until " + stamp(*s.LeaseUntil)
		}
		line("lease", s.LeaseOwner+until)
	}
	if t.DeadLetter != nil {
		line("dead", fmt.Sprintf("since %s after %d attempts: %s", stamp(t.DeadLetter.DeadSince), t.DeadLetter.Attempts, t.DeadLetter.LastError))
	}
	if s.CompileOutput != "" {
		b.WriteString("\n" + st.Section.Render("Compile output") + "\n")
		b.WriteString(block(s.CompileOutput, width, maxCompileLines, func(n int) string {
			return st.Muted.Render(fmt.Sprintf("… %d more lines (ojctl status %s shows them all)", n, s.ID))
		}) + "\n")
	}
	if len(s.Cases) > 0 {
		hint := ""
		if sel > 0 {
			hint = "  " + st.Muted.Render("([ ] select a case, o shows its output)")
		}
		b.WriteString("\n" + st.Section.Render("Cases") + hint + "\n")
		b.WriteString(casesTable(st, s.Cases, width, sel) + "\n")
	}
	if len(s.Groups) > 0 {
		b.WriteString("\n" + st.Section.Render("Groups") + "\n")
		b.WriteString(groupsTable(st, s.Groups) + "\n")
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
		b.WriteString(hang(fmt.Sprintf("  #%-2d %-14s %s → %s  ", a.Attempt, shared.OneLine(orDash(a.Worker), 14), stampp(a.ClaimedAt), stampp(a.EndedAt)), out, width) + "\n")
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
		b.WriteString(hang(fmt.Sprintf("  %s  %-13s #%-2d ", stamp(e.At), e.Event, e.Attempt), strings.TrimSpace(who+" "+e.Detail), width) + "\n")
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
