// Package listview is the table every list view of the dashboard is made of: bubbles'
// table with a "/" filter (bubbles' text input), marks on rows, and a detail pane
// (bubbles' viewport) opened with enter and closed with esc.
package listview

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/table"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"oj/tui/shared"
)

// Column is one column: Width is its width; the Flex column takes what is left.
type Column struct {
	Title string
	Width int
	Flex  bool
	// Narrow, when set, is the width below 120 columns; cells are then cut in the middle
	// (ids keep their head and tail, which is what tells them apart).
	Narrow int
}

// Row is one row; ID identifies it across refreshes (marks and the cursor follow it).
type Row struct {
	ID    string
	Cells []string
}

// Model is a filterable, markable table with a detail pane.
type Model struct {
	ctx      *shared.Context
	cols     []Column
	markable bool
	empty    string

	all, shown []Row
	table      table.Model
	filter     textinput.Model
	filtering  bool
	marks      map[string]bool

	detailOpen  bool
	detailTitle string
	detail      viewport.Model

	width, height int
}

// New returns a list with cols; markable adds a mark column; empty is shown with no rows.
func New(ctx *shared.Context, cols []Column, markable bool, empty string) Model {
	t := table.New(table.WithFocused(true), table.WithKeyMap(ctx.Keys.Table()), table.WithStyles(ctx.Styles.Table))
	f := textinput.New()
	f.Prompt = "/"
	f.PromptStyle = ctx.Styles.Label
	f.TextStyle = ctx.Styles.Header
	f.Cursor.Style = ctx.Styles.Header
	f.Cursor.SetMode(cursor.CursorStatic) // a blinking cursor would make goldens flaky
	f.CharLimit = 64
	vp := viewport.New(0, 0)
	return Model{ctx: ctx, cols: cols, markable: markable, empty: empty, table: t, filter: f,
		marks: map[string]bool{}, detail: vp}
}

// SetSize gives the list its space.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.layout()
}

func (m *Model) layout() {
	n := len(m.cols)
	if m.markable {
		n++
	}
	avail := m.width - 2*n
	fixed, flex := 0, -1
	for i, c := range m.cols {
		if c.Flex {
			flex = i
		} else if c.Narrow > 0 && m.width < 120 {
			fixed += c.Narrow
		} else {
			fixed += c.Width
		}
	}
	var cols []table.Column
	if m.markable {
		cols = append(cols, table.Column{Title: "✓", Width: 1})
		avail--
	}
	for i, c := range m.cols {
		w := c.Width
		if c.Narrow > 0 && m.width < 120 {
			w = c.Narrow
		}
		if i == flex {
			w = max(c.Width, avail-fixed)
		}
		cols = append(cols, table.Column{Title: c.Title, Width: w})
	}
	// Rows must never have more cells than columns: clear them before changing columns.
	m.table.SetRows(nil)
	m.table.SetColumns(cols)
	m.table.SetWidth(m.width)
	m.table.SetHeight(max(3, m.height-1))
	m.detail.Width, m.detail.Height = m.width, max(1, m.height-1)
	m.apply()
}

// SetRows replaces the rows, keeping the filter, the marks of rows still there and the
// cursor on the same row.
func (m *Model) SetRows(rows []Row) {
	m.all = rows
	present := make(map[string]bool, len(rows))
	for _, r := range rows {
		present[r.ID] = true
	}
	for id := range m.marks {
		if !present[id] {
			delete(m.marks, id)
		}
	}
	m.apply()
}

func (m *Model) apply() {
	sel, _ := m.Selected()
	q := strings.ToLower(strings.TrimSpace(m.filter.Value()))
	m.shown = m.shown[:0]
	for _, r := range m.all {
		if q == "" || strings.Contains(strings.ToLower(r.ID+"\x00"+strings.Join(r.Cells, "\x00")), q) {
			m.shown = append(m.shown, r)
		}
	}
	trs := make([]table.Row, len(m.shown))
	cursor := min(m.table.Cursor(), max(0, len(m.shown)-1))
	for i, r := range m.shown {
		cells := r.Cells
		if m.width < 120 {
			cells = append([]string(nil), cells...)
			for j, c := range m.cols {
				if c.Narrow > 0 && j < len(cells) {
					cells[j] = shared.Middle(cells[j], c.Narrow)
				}
			}
		}
		if m.markable {
			mark := " "
			if m.marks[r.ID] {
				mark = "*"
			}
			cells = append([]string{mark}, cells...)
		}
		trs[i] = cells
		if r.ID == sel.ID {
			cursor = i
		}
	}
	m.table.SetRows(trs)
	m.table.SetCursor(cursor)
}

// Selected is the row under the cursor.
func (m *Model) Selected() (Row, bool) {
	i := m.table.Cursor()
	if i < 0 || i >= len(m.shown) {
		return Row{}, false
	}
	return m.shown[i], true
}

// Marked returns the marked rows' ids in table order.
func (m *Model) Marked() []string {
	var out []string
	for _, r := range m.all {
		if m.marks[r.ID] {
			out = append(out, r.ID)
		}
	}
	return out
}

// Capturing reports that the filter input is open.
func (m *Model) Capturing() bool { return m.filtering }

// DetailOpen reports whether the detail pane is shown.
func (m *Model) DetailOpen() bool { return m.detailOpen }

// OpenDetail shows the detail pane with title and content.
func (m *Model) OpenDetail(title, content string) {
	m.detailOpen, m.detailTitle = true, title
	m.detail.SetContent(content)
	m.detail.GotoTop()
}

// SetDetail replaces the open pane's content (a trace that arrived) keeping the scroll.
func (m *Model) SetDetail(title, content string) {
	if m.detailOpen && m.detailTitle == title {
		m.detail.SetContent(content)
	}
}

// DetailTitle is the open pane's title.
func (m *Model) DetailTitle() string { return m.detailTitle }

// Back closes the filter, then the detail pane, then clears the filter.
func (m *Model) Back() bool {
	switch {
	case m.filtering:
		m.filtering = false
		m.filter.Blur()
		m.filter.SetValue("")
		m.apply()
	case m.detailOpen:
		m.detailOpen = false
	case m.filter.Value() != "":
		m.filter.SetValue("")
		m.apply()
	default:
		return false
	}
	return true
}

// Update handles filter typing, marks, and moving in the table or the detail pane.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	km := m.ctx.Keys
	if k, ok := msg.(tea.KeyMsg); ok {
		if m.filtering {
			switch k.Type {
			case tea.KeyEnter:
				m.filtering = false
				m.filter.Blur()
				return nil
			case tea.KeyEsc:
				m.Back()
				return nil
			}
			var cmd tea.Cmd
			m.filter, cmd = m.filter.Update(msg)
			m.apply()
			return cmd
		}
		if m.detailOpen {
			var cmd tea.Cmd
			m.detail, cmd = m.detail.Update(msg)
			return cmd
		}
		switch {
		case key.Matches(k, km.Filter):
			// A new filter starts empty: typing after "/" replaces the last one rather than
			// appending to it (enter keeps what was typed, esc clears it).
			m.filtering = true
			m.filter.SetValue("")
			m.apply()
			return m.filter.Focus()
		case key.Matches(k, km.Mark) && m.markable:
			if r, ok := m.Selected(); ok {
				if m.marks[r.ID] {
					delete(m.marks, r.ID)
				} else {
					m.marks[r.ID] = true
				}
				m.apply()
				m.table.MoveDown(1)
			}
			return nil
		}
	}
	var cmd tea.Cmd
	m.table, cmd = m.table.Update(msg)
	return cmd
}

// View renders the list (or the detail pane) in its size.
func (m *Model) View() string {
	st := m.ctx.Styles
	if m.detailOpen {
		head := st.Section.Render(m.detailTitle) + st.Muted.Render(fmt.Sprintf("  (esc back, ↑/↓ scroll %3.f%%)", m.detail.ScrollPercent()*100))
		return shared.Fit(head+"\n"+m.detail.View(), m.width, m.height)
	}
	var status string
	switch {
	case m.filtering || m.filter.Value() != "":
		status = m.filter.View() + st.Muted.Render(fmt.Sprintf("   %d of %d", len(m.shown), len(m.all)))
	default:
		status = st.Muted.Render(fmt.Sprintf("%d rows", len(m.all)))
		if n := len(m.marks); n > 0 {
			status += st.Mark.Render(fmt.Sprintf(" · %d marked", n))
		}
	}
	body := m.table.View()
	if len(m.shown) == 0 {
		msg := m.empty
		if len(m.all) > 0 {
			msg = "no rows match the filter"
		}
		body = strings.SplitN(body, "\n", 3)[0] + "\n" + strings.SplitN(body, "\n", 3)[1] + "\n " + st.Muted.Render(msg)
	}
	return shared.Fit(shared.Fit(body, m.width, m.height-1)+"\n"+status, m.width, m.height)
}

// RowDetail is the default detail pane content: every column's title and full value.
func (m *Model) RowDetail(r Row) string {
	var b strings.Builder
	w := 0
	for _, c := range m.cols {
		w = max(w, len(c.Title))
	}
	for i, c := range m.cols {
		if i < len(r.Cells) {
			fmt.Fprintf(&b, "%s  %s\n", m.ctx.Styles.Label.Render(fmt.Sprintf("%-*s", w, c.Title)), r.Cells[i])
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
