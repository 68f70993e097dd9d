// Package pel is the dashboard's PEL view: every lane's pending entries (who holds each,
// how long idle, how often delivered), reclaim, and a safe trim of the selected lane.
package pel

import (
	"context"
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"oj/core/wire"
	"oj/tui/listview"
	"oj/tui/shared"
)

// Model is the PEL view.
type Model struct {
	ctx     *shared.Context
	list    listview.Model
	entries map[string]wire.PendingEntry
}

// New returns the view.
func New(ctx *shared.Context) *Model {
	cols := []listview.Column{
		{Title: "LANE", Width: 7}, {Title: "STREAM ID", Width: 15}, {Title: "SUBMISSION", Width: 36, Narrow: 13},
		{Title: "CONSUMER", Width: 14, Flex: true}, {Title: "IDLE", Width: 7}, {Title: "DELIV", Width: 5},
	}
	return &Model{ctx: ctx, list: listview.New(ctx, cols, false, "no pending entries")}
}

// Name is "pel".
func (m *Model) Name() string { return "pel" }

// SetSnapshot shows the snapshot's pending entries.
func (m *Model) SetSnapshot(s *shared.Snapshot) {
	rows := make([]listview.Row, len(s.PEL))
	m.entries = make(map[string]wire.PendingEntry, len(s.PEL))
	for i, e := range s.PEL {
		id := e.Lane + "/" + e.StreamID
		m.entries[id] = e
		sub := e.SubmissionID
		if e.Deleted {
			sub = "(entry deleted)"
		}
		rows[i] = listview.Row{ID: id, Cells: []string{e.Lane, e.StreamID, sub, e.Consumer, shared.MS(e.IdleMS), fmt.Sprint(e.Deliveries)}}
	}
	m.list.SetRows(rows)
}

// SetSize gives the view its space.
func (m *Model) SetSize(w, h int) { m.list.SetSize(w, h) }

// Capturing reports that the filter is open.
func (m *Model) Capturing() bool { return m.list.Capturing() }

// Back closes the filter or the detail.
func (m *Model) Back() bool { return m.list.Back() }

// Keys are the view's actions.
func (m *Model) Keys() []key.Binding {
	return m.ctx.ActionKeys(m.ctx.Keys.Reclaim, m.ctx.Keys.ReclaimAll, m.ctx.Keys.Trim)
}

// Update opens details and asks for reclaims and trims.
func (m *Model) Update(msg tea.Msg) (shared.View, tea.Cmd) {
	km := m.ctx.Keys
	if k, ok := msg.(tea.KeyMsg); ok && !m.list.Capturing() && !m.list.DetailOpen() {
		r, sel := m.list.Selected()
		e := m.entries[r.ID]
		switch {
		case key.Matches(k, km.Detail) && sel:
			m.list.OpenDetail("pending entry "+r.ID, m.list.RowDetail(r))
			return m, nil
		case key.Matches(k, km.Reclaim) && sel && !m.ctx.ReadOnly:
			// The API reclaims by lane and idle time, not by entry: the selected entry and
			// every entry of its lane idle at least as long.
			idle := e.IdleMS
			return m, Reclaim(m.ctx, fmt.Sprintf("reclaim %s entries idle ≥ %s", e.Lane, shared.MS(idle)),
				wire.ReclaimRequest{Lane: e.Lane, MinIdleMS: &idle})
		case key.Matches(k, km.ReclaimAll) && !m.ctx.ReadOnly:
			return m, Reclaim(m.ctx, "reclaim all idle entries (every lane, server's min idle)", wire.ReclaimRequest{})
		case key.Matches(k, km.Trim) && sel && !m.ctx.ReadOnly:
			return m, Trim(m.ctx, e.Lane)
		}
	}
	return m, m.list.Update(msg)
}

// View renders the view.
func (m *Model) View() string { return m.list.View() }

// Reclaim asks for a reclaim.
func Reclaim(c *shared.Context, what string, req wire.ReclaimRequest) tea.Cmd {
	src := c.Source
	return shared.AskCall(what, func(ctx context.Context, dry bool) (*wire.ReclaimResult, error) {
		r := req
		r.DryRun = dry
		return src.Reclaim(ctx, r)
	}, func(res *wire.ReclaimResult) (int, string) {
		return res.WouldReclaim, fmt.Sprintf("%d of %d examined would be reclaimed (%d still leased, %d terminal, %d missing)",
			res.WouldReclaim, res.Examined, res.StillLeased, res.TerminalAcked, res.Missing)
	}, func(res *wire.ReclaimResult) string {
		return fmt.Sprintf("reclaimed %d of %d examined; %d still leased, %d terminal acked, %d missing",
			res.Reclaimed, res.Examined, res.StillLeased, res.TerminalAcked, res.Missing)
	})
}

// Trim asks for a safe trim of lane ("" for every lane).
func Trim(c *shared.Context, lane string) tea.Cmd {
	src := c.Source
	name := lane
	if name == "" {
		name = "every lane"
	}
	req := wire.TrimRequest{Lane: lane, Strategy: "safe"}
	return shared.AskCall("safe trim of "+name, func(ctx context.Context, dry bool) (*wire.TrimResult, error) {
		r := req
		r.DryRun = dry
		return src.Trim(ctx, r)
	}, func(res *wire.TrimResult) (int, string) {
		n := res.LengthBefore - res.LengthAfter
		return int(n), fmt.Sprintf("%d entries would go (length %d → %d)", n, res.LengthBefore, res.LengthAfter)
	}, func(res *wire.TrimResult) string {
		return fmt.Sprintf("trimmed %s: length %d → %d", name, res.LengthBefore, res.LengthAfter)
	})
}
