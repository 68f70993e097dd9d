package listview

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"oj/tui/shared"
)

// Plain is a read-only list view: rows from each snapshot, detail of the selected row.
type Plain struct {
	name string
	list Model
	rows func(*shared.Snapshot) ([]Row, bool)
}

// NewPlain returns a view named name; rows builds the rows from a snapshot (false: the
// snapshot has nothing for this view, keep what is shown).
func NewPlain(ctx *shared.Context, name string, cols []Column, empty string, rows func(*shared.Snapshot) ([]Row, bool)) *Plain {
	return &Plain{name: name, list: New(ctx, cols, false, empty), rows: rows}
}

// Name is the view's name.
func (p *Plain) Name() string { return p.name }

// SetSnapshot shows the snapshot.
func (p *Plain) SetSnapshot(s *shared.Snapshot) {
	if rows, ok := p.rows(s); ok {
		p.list.SetRows(rows)
	}
}

// SetSize gives the view its space.
func (p *Plain) SetSize(w, h int) { p.list.SetSize(w, h) }

// Capturing reports that the filter is open.
func (p *Plain) Capturing() bool { return p.list.Capturing() }

// Back closes the filter or the detail.
func (p *Plain) Back() bool { return p.list.Back() }

// Keys: a plain view has no actions.
func (p *Plain) Keys() []key.Binding { return nil }

// Update opens the detail on enter; everything else goes to the list.
func (p *Plain) Update(msg tea.Msg) (shared.View, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok && !p.list.Capturing() && !p.list.DetailOpen() && key.Matches(k, p.list.ctx.Keys.Detail) {
		if r, ok := p.list.Selected(); ok {
			p.list.OpenDetail(p.name+" "+r.ID, p.list.RowDetail(r))
		}
		return p, nil
	}
	return p, p.list.Update(msg)
}

// View renders the view.
func (p *Plain) View() string { return p.list.View() }
