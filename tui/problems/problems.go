// Package problems is the dashboard's Problems view: every problem with its latest
// version, the format its package came in, its limits and its verify status (from GET
// /api/v1/problems), the verification's table in the detail pane, and verify and
// remove of the selected problem, each behind the dry run and confirmation.
package problems

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"oj/core/wire"
	"oj/tui/listview"
	"oj/tui/shared"
)

// Model is the Problems view.
type Model struct {
	ctx   *shared.Context
	list  listview.Model
	width int
	items map[string]wire.ProblemSummary
}

// New returns the view.
func New(ctx *shared.Context) *Model {
	cols := []listview.Column{
		{Title: "PROBLEM", Width: 20, Narrow: 14}, {Title: "VER", Width: 4}, {Title: "FORMAT", Width: 7},
		{Title: "CASES", Width: 5}, {Title: "TIME", Width: 9}, {Title: "MEMORY", Width: 8}, {Title: "SUBS", Width: 6},
		{Title: "VERIFY", Width: 28, Flex: true},
	}
	return &Model{ctx: ctx, list: listview.New(ctx, cols, false, "no problems: upload one with ojctl problem push DIR|ZIP"),
		items: map[string]wire.ProblemSummary{}}
}

// Name is "problems".
func (m *Model) Name() string { return "problems" }

// SetSnapshot shows the snapshot's problems.
func (m *Model) SetSnapshot(s *shared.Snapshot) {
	if s.Problems == nil {
		return
	}
	rows := make([]listview.Row, len(s.Problems.Items))
	m.items = make(map[string]wire.ProblemSummary, len(s.Problems.Items))
	for i, p := range s.Problems.Items {
		m.items[p.ID] = p
		id := p.ID
		if p.Archived {
			id += " (archived)"
		}
		rows[i] = listview.Row{ID: p.ID, Cells: []string{id, fmt.Sprintf("v%d", p.Version), p.Format,
			shared.Num(int64(p.CaseCount)), Limit(p), fmt.Sprintf("%d MiB", p.MemoryLimitMB), shared.Num(p.Submissions),
			VerifyStatus(p)}}
	}
	m.list.SetRows(rows)
}

// Limit is a problem's time limit as the list shows it: "~" marks a provisional one
// (a verify derives it from the accepted submissions).
func Limit(p wire.ProblemSummary) string {
	s := fmt.Sprintf("%d ms", p.TimeLimitMS)
	if p.TimeLimitProvisional {
		s = "~" + s
	}
	return s
}

// VerifyStatus is a problem's verify column: its latest version's latest
// verification's state and summary, or that it was never verified.
func VerifyStatus(p wire.ProblemSummary) string {
	if p.Verify == nil {
		return "not verified"
	}
	if p.Verify.Summary == "" {
		return p.Verify.State
	}
	return p.Verify.State + ": " + p.Verify.Summary
}

// SetSize gives the view its space.
func (m *Model) SetSize(w, h int) { m.width = w; m.list.SetSize(w, h) }

// Capturing reports that the filter is open.
func (m *Model) Capturing() bool { return m.list.Capturing() }

// Back closes the filter or the detail pane.
func (m *Model) Back() bool { return m.list.Back() }

// Keys are the view's actions.
func (m *Model) Keys() []key.Binding {
	return m.ctx.ActionKeys(m.ctx.Keys.Verify, m.ctx.Keys.Remove)
}

// verificationMsg is the answer of a verification fetch.
type verificationMsg struct {
	id  string
	v   *wire.Verification
	err error
	p   *wire.Problem // its grading and time limit derivation; nil when it could not be read
}

// Update opens a problem's verification table and asks for verify and remove.
func (m *Model) Update(msg tea.Msg) (shared.View, tea.Cmd) {
	km := m.ctx.Keys
	switch msg := msg.(type) {
	case verificationMsg:
		if m.list.DetailTitle() == detailTitle(msg.id) {
			m.list.SetDetail(detailTitle(msg.id), m.render(msg))
		}
		return m, nil
	case tea.KeyMsg:
		if m.list.Capturing() || m.list.DetailOpen() {
			break
		}
		r, sel := m.list.Selected()
		switch {
		case key.Matches(msg, km.Detail) && sel:
			m.list.OpenDetail(detailTitle(r.ID), "loading the verification…")
			return m, m.fetch(r.ID)
		case key.Matches(msg, km.Verify) && sel && !m.ctx.ReadOnly:
			return m, verify(m.ctx, r.ID, m.items[r.ID].Version)
		case key.Matches(msg, km.Remove) && sel && !m.ctx.ReadOnly:
			return m, remove(m.ctx, r.ID)
		}
	}
	return m, m.list.Update(msg)
}

func detailTitle(id string) string { return "problem " + id }

func (m *Model) fetch(id string) tea.Cmd {
	src, timeout := m.ctx.Source, m.ctx.CallTimeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		v, err := src.Verification(ctx, id)
		p, _ := src.Problem(ctx, id)
		return verificationMsg{id: id, v: v, err: err, p: p}
	}
}

// render is the detail pane: the problem's row, then its verification's table.
func (m *Model) render(msg verificationMsg) string {
	st := m.ctx.Styles
	var b strings.Builder
	if p, ok := m.items[msg.id]; ok {
		fmt.Fprintf(&b, "%s  %s v%d, %s, %d cases, %s, %d MiB\n\n", st.Label.Render(msg.id), p.Title, p.Version, p.Format,
			p.CaseCount, Limit(p), p.MemoryLimitMB)
	}
	if msg.p != nil {
		b.WriteString(RenderLanguages(msg.p) + "\n")
		b.WriteString(RenderGrading(msg.p) + "\n")
	}
	if msg.err != nil {
		b.WriteString(st.Muted.Render("verification: " + msg.err.Error()))
		return b.String()
	}
	b.WriteString(RenderVerification(msg.v))
	return strings.TrimRight(b.String(), "\n")
}

// RenderVerification is a verification as a table: each labeled submission's expected
// and obtained verdicts and time against the limit, then the slowest accepted time,
// its margin and the summary.
func RenderVerification(v *wire.Verification) string {
	var b strings.Builder
	fmt.Fprintf(&b, "verification %d of v%d: %s", v.ID, v.Version, v.State)
	if v.Summary != "" {
		fmt.Fprintf(&b, " — %s", v.Summary)
	}
	b.WriteString("\n")
	if v.LimitMS > 0 {
		derived := ""
		if v.Derived {
			derived = " (derived)"
		}
		fmt.Fprintf(&b, "limit %d ms%s, run with %d ms; slowest accepted %s, margin %.2f×\n",
			v.LimitMS, derived, v.RunLimitMS, v.SlowestACText(), v.Margin)
	}
	b.WriteString("\n")
	w := len("SOURCE")
	for _, r := range v.Rows {
		w = max(w, len(r.Source))
	}
	w = min(w, 60)
	fmt.Fprintf(&b, "%-*s  %-9s  %-14s  %-4s  %-13s  %s\n", w, "SOURCE", "LANGUAGE", "EXPECTED", "GOT", "TIME", "STATUS")
	for _, r := range v.Rows {
		src := r.Source
		if len(src) > w {
			src = "…" + src[len(src)-w+1:]
		}
		got := r.Run
		if got == "" {
			got = r.Got
		}
		t := fmt.Sprintf("%d/%d ms", r.TimeMS, r.LimitMS)
		status := r.Status
		if r.Note != "" {
			status += " (" + r.Note + ")"
		}
		fmt.Fprintf(&b, "%-*s  %-9s  %-14s  %-4s  %-13s  %s\n", w, src, r.Language, strings.Join(r.Expect, "|"), got, t, status)
	}
	for _, p := range v.Problems {
		fmt.Fprintf(&b, "problem: %s\n", p)
	}
	return b.String()
}

func verify(c *shared.Context, id string, version int) tea.Cmd {
	src := c.Source
	return shared.AskCall(fmt.Sprintf("verify %s v%d against its labeled submissions", id, version),
		func(ctx context.Context, dry bool) (*wire.VerifyStarted, error) {
			return src.VerifyProblem(ctx, id, dry)
		},
		func(r *wire.VerifyStarted) (int, string) {
			return r.Submissions, fmt.Sprintf("%d labeled submissions would be judged on the rejudge lane (%d not run)",
				r.Submissions, r.NotRun)
		},
		func(r *wire.VerifyStarted) string {
			return fmt.Sprintf("verification %d of %s v%d started: %d submissions queued (enter shows its table)",
				r.VerificationID, id, r.Version, r.Submissions)
		})
}

func remove(c *shared.Context, id string) tea.Cmd {
	src := c.Source
	return shared.AskCall("remove problem "+id,
		func(ctx context.Context, dry bool) (*wire.ProblemRemoved, error) {
			return src.RemoveProblem(ctx, id, dry)
		},
		func(r *wire.ProblemRemoved) (int, string) {
			if r.Action == "archived" {
				return 1, fmt.Sprintf("%s would be archived (its %d submissions stay)", id, r.Submissions)
			}
			return 1, fmt.Sprintf("%s would be deleted (it has no submissions)", id)
		},
		func(r *wire.ProblemRemoved) string { return fmt.Sprintf("problem %s %s", id, r.Action) })
}

// View renders the view.
func (m *Model) View() string { return m.list.View() }
