// Package dlq is the dashboard's DLQ view: the dead letters, with the submission's trace
// in the detail pane, and replay of the marked (or selected) or of all dead letters.
package dlq

import (
	"context"
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"oj/core/wire"
	"oj/tui/listview"
	"oj/tui/shared"
	"oj/tui/trace"
)

// Model is the DLQ view.
type Model struct {
	ctx   *shared.Context
	list  listview.Model
	width int
	total int64
}

// New returns the view.
func New(ctx *shared.Context) *Model {
	cols := []listview.Column{
		{Title: "SUBMISSION", Width: 36, Narrow: 13}, {Title: "LANE", Width: 7}, {Title: "TRIES", Width: 5},
		{Title: "DEAD FOR", Width: 8}, {Title: "LAST ERROR", Width: 10, Flex: true},
	}
	return &Model{ctx: ctx, list: listview.New(ctx, cols, true, "no dead letters")}
}

// Name is "dlq".
func (m *Model) Name() string { return "dlq" }

// SetSnapshot shows the snapshot's dead letters.
func (m *Model) SetSnapshot(s *shared.Snapshot) {
	if s.DLQ == nil {
		return
	}
	now := m.ctx.Now()
	m.total = s.DLQ.Total
	rows := make([]listview.Row, len(s.DLQ.Items))
	for i, d := range s.DLQ.Items {
		rows[i] = listview.Row{ID: d.SubmissionID, Cells: []string{d.SubmissionID, d.Lane,
			fmt.Sprint(d.Attempts), shared.Ago(now, d.DeadSince), shared.OneLine(d.LastError, 500)}}
	}
	m.list.SetRows(rows)
}

// SetSize gives the view its space.
func (m *Model) SetSize(w, h int) { m.width = w; m.list.SetSize(w, h) }

// Capturing reports that the filter is open.
func (m *Model) Capturing() bool { return m.list.Capturing() }

// Back closes the filter or the trace.
func (m *Model) Back() bool { return m.list.Back() }

// Keys are the view's actions.
func (m *Model) Keys() []key.Binding {
	return m.ctx.ActionKeys(m.ctx.Keys.Replay, m.ctx.Keys.ReplayAll)
}

// Update opens traces and asks for replays.
func (m *Model) Update(msg tea.Msg) (shared.View, tea.Cmd) {
	km := m.ctx.Keys
	switch msg := msg.(type) {
	case shared.TraceMsg:
		m.list.SetDetail("trace "+msg.ID, render(m, msg))
		return m, nil
	case tea.KeyMsg:
		if m.list.Capturing() || m.list.DetailOpen() {
			break
		}
		switch {
		case key.Matches(msg, km.Detail):
			if r, ok := m.list.Selected(); ok {
				m.list.OpenDetail("trace "+r.ID, "loading the trace…")
				return m, m.ctx.FetchTrace(r.ID)
			}
			return m, nil
		case key.Matches(msg, km.Replay) && !m.ctx.ReadOnly:
			ids := m.list.Marked()
			what := fmt.Sprintf("replay %d marked dead letters", len(ids))
			if len(ids) == 0 {
				r, ok := m.list.Selected()
				if !ok {
					return m, nil
				}
				ids, what = []string{r.ID}, "replay dead letter "+shared.Short(r.ID, 8)
			}
			return m, replay(m.ctx, what, wire.ReplayRequest{IDs: ids})
		case key.Matches(msg, km.ReplayAll) && !m.ctx.ReadOnly:
			return m, replay(m.ctx, fmt.Sprintf("replay all %d dead letters", m.total), wire.ReplayRequest{All: true})
		}
	}
	return m, m.list.Update(msg)
}

func render(m *Model, msg shared.TraceMsg) string {
	if msg.Err != nil {
		return m.ctx.Styles.Error.Render("trace: " + msg.Err.Error())
	}
	return trace.Render(m.ctx.Styles, msg.Trace, m.width)
}

func replay(c *shared.Context, what string, req wire.ReplayRequest) tea.Cmd {
	src := c.Source
	return shared.AskCall(what, func(ctx context.Context, dry bool) (*wire.ReplayResult, error) {
		r := req
		r.DryRun = dry
		return src.ReplayDLQ(ctx, r)
	}, func(res *wire.ReplayResult) (int, string) {
		return res.WouldReplay, fmt.Sprintf("%d dead letters would be replayed", res.WouldReplay)
	}, func(res *wire.ReplayResult) string {
		return fmt.Sprintf("replayed %d of %d dead letters (new attempts via the outbox)", res.Replayed, res.Requested)
	})
}

// View renders the view.
func (m *Model) View() string { return m.list.View() }
