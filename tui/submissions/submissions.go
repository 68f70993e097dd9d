// Package submissions is the dashboard's Submissions view: the most recent submissions
// (GET /admin/v1/submissions, newest first) with their state and verdict, each with its
// trace in the detail pane (error, compile output, cases) and each case's output from
// there, and rejudge and cancel.
package submissions

import (
	"context"
	"fmt"
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"oj/core/wire"
	"oj/tui/listview"
	"oj/tui/shared"
)

// Model is the Submissions view.
type Model struct {
	ctx   *shared.Context
	list  listview.Model
	width int
	cases caseNav
}

// New returns the view.
func New(ctx *shared.Context) *Model {
	cols := []listview.Column{
		{Title: "SUBMISSION", Width: 36, Narrow: 13}, {Title: "AGE", Width: 6}, {Title: "STATE", Width: 8},
		{Title: "VERDICT", Width: 8}, {Title: "TIME", Width: 6}, {Title: "ATT", Width: 3},
		{Title: "LANG", Width: 7}, {Title: "PROBLEM", Width: 8, Flex: true},
	}
	return &Model{ctx: ctx, list: listview.New(ctx, cols, false, "no submissions yet")}
}

// Name is "submissions".
func (m *Model) Name() string { return "submissions" }

// SetSnapshot shows the snapshot's recent submissions, newest first.
func (m *Model) SetSnapshot(s *shared.Snapshot) {
	if s.Submissions == nil {
		return
	}
	now := m.ctx.Now()
	rows := make([]listview.Row, len(s.Submissions.Items))
	for i, it := range s.Submissions.Items {
		rows[i] = listview.Row{ID: it.ID, Cells: []string{it.ID, shared.Ago(now, it.CreatedAt), it.State,
			verdict(it), judgedTime(it), strconv.Itoa(it.Attempt), it.Language, it.ProblemID}}
	}
	m.list.SetRows(rows)
}

// verdict is the verdict, with the score when it is partial ("PC 45"); "-" before one.
func verdict(s wire.SubmissionSummary) string {
	if s.Verdict == nil {
		return "-"
	}
	if *s.Verdict == "PC" && s.Score != nil {
		return "PC " + strconv.FormatFloat(*s.Score, 'f', -1, 64)
	}
	return *s.Verdict
}

// judgedTime is the run time; "-" before a verdict, and for SE and CE, which ran nothing
// (the API reports 0 for them).
func judgedTime(s wire.SubmissionSummary) string {
	if s.TimeMS == nil || *s.Verdict == "SE" || *s.Verdict == "CE" {
		return "-"
	}
	return shared.MS(int64(*s.TimeMS))
}

// SetSize gives the view its space.
func (m *Model) SetSize(w, h int) { m.width = w; m.list.SetSize(w, h) }

// Capturing reports that the filter is open.
func (m *Model) Capturing() bool { return m.list.Capturing() }

// Back closes the filter, a case's output (back to its trace) or the trace.
func (m *Model) Back() bool {
	if m.cases.backToTrace(m) {
		return true
	}
	m.cases.reset()
	return m.list.Back()
}

// Keys are the view's actions, and the case keys while a trace with cases is open.
func (m *Model) Keys() []key.Binding {
	return append(m.cases.keys(m), m.ctx.ActionKeys(m.ctx.Keys.Rejudge, m.ctx.Keys.Cancel)...)
}

// Update opens traces and asks for rejudges and cancels.
func (m *Model) Update(msg tea.Msg) (shared.View, tea.Cmd) {
	km := m.ctx.Keys
	switch msg := msg.(type) {
	case shared.TraceMsg:
		if msg.Err != nil {
			m.list.SetDetail("trace "+msg.ID, m.ctx.Styles.Error.Render("trace: "+msg.Err.Error()))
			return m, nil
		}
		m.cases.traced(m, msg.Trace)
		return m, nil
	case shared.CaseMsg:
		m.cases.arrived(m, msg)
		return m, nil
	case tea.KeyMsg:
		if m.list.DetailOpen() {
			if handled, cmd := m.cases.key(m, msg); handled {
				return m, cmd
			}
		}
		if m.list.Capturing() || m.list.DetailOpen() {
			break
		}
		r, sel := m.list.Selected()
		switch {
		case key.Matches(msg, km.Detail) && sel:
			m.cases.reset()
			m.list.OpenDetail("trace "+r.ID, "loading the trace…")
			return m, m.ctx.FetchTrace(r.ID)
		case key.Matches(msg, km.Rejudge) && sel && !m.ctx.ReadOnly:
			return m, m.rejudge(r.ID)
		case key.Matches(msg, km.Cancel) && sel && !m.ctx.ReadOnly:
			return m, m.cancel(r.ID)
		}
	}
	return m, m.list.Update(msg)
}

func (m *Model) rejudge(id string) tea.Cmd {
	src := m.ctx.Source
	return shared.AskCall("rejudge submission "+shared.Short(id, 8)+" on the rejudge lane",
		func(ctx context.Context, dry bool) (*wire.RejudgeResult, error) {
			return src.RejudgeSubmission(ctx, id, dry)
		},
		func(r *wire.RejudgeResult) (int, string) {
			return r.WouldRejudge, fmt.Sprintf("%d submission would be rejudged", r.WouldRejudge)
		},
		func(r *wire.RejudgeResult) string {
			return fmt.Sprintf("rejudged %d of %d", r.Rejudged, max(r.Requested, 1))
		})
}

func (m *Model) cancel(id string) tea.Cmd {
	src := m.ctx.Source
	return shared.AskCall("cancel submission "+shared.Short(id, 8),
		func(ctx context.Context, dry bool) (*wire.CancelResult, error) { return src.Cancel(ctx, id, dry) },
		func(r *wire.CancelResult) (int, string) {
			return r.WouldCancel, fmt.Sprintf("%d submission would be canceled", r.WouldCancel)
		},
		func(r *wire.CancelResult) string { return fmt.Sprintf("canceled %d submission", r.Canceled) })
}

// View renders the view.
func (m *Model) View() string { return m.list.View() }
