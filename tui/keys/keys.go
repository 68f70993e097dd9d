// Package keys is the dashboard's one key map: every binding, its help text, and the
// short and full help the root model shows.
package keys

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/table"
)

// Map holds every binding of the dashboard.
type Map struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding

	Jump    key.Binding // ":" jump to a view by name
	Filter  key.Binding // "/"
	Help    key.Binding // "?"
	Mark    key.Binding // space
	Detail  key.Binding // enter
	Back    key.Binding // esc
	Refresh key.Binding // r
	Pause   key.Binding // p
	Quit    key.Binding // q
	NextTab key.Binding // tab
	PrevTab key.Binding // shift+tab

	// Actions (hidden in read-only mode).
	Reclaim    key.Binding // reclaim the selected entry's lane down to its idle time
	ReclaimAll key.Binding // reclaim every idle entry
	Replay     key.Binding // replay marked (or the selected) dead letters
	ReplayAll  key.Binding
	Trim       key.Binding // safe trim of the selected lane
	Rejudge    key.Binding
	Cancel     key.Binding
	Verify     key.Binding // verify the selected problem against its labeled submissions
	Remove     key.Binding // remove (archive or delete) the selected problem
	Drain      key.Binding // drain the selected worker
	Disable    key.Binding
	Enable     key.Binding

	Yes, No key.Binding // the confirm dialog
}

// Default returns the key map.
func Default() Map {
	b := func(desc string, k ...string) key.Binding {
		return key.NewBinding(key.WithKeys(k...), key.WithHelp(k[0], desc))
	}
	m := Map{
		Up:         key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:       key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:     key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup", "page up")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown", "f"), key.WithHelp("pgdn", "page down")),
		Top:        key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:     key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "bottom")),
		Jump:       b("view", ":"),
		Filter:     b("filter", "/"),
		Help:       b("help", "?"),
		Mark:       key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "mark")),
		Detail:     b("detail", "enter"),
		Back:       b("back", "esc"),
		Refresh:    b("refresh", "r"),
		Pause:      b("pause", "p"),
		Quit:       key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		NextTab:    b("next view", "tab"),
		PrevTab:    b("prev view", "shift+tab"),
		Reclaim:    b("reclaim", "c"),
		ReclaimAll: b("reclaim all", "C"),
		Replay:     b("replay", "e"),
		ReplayAll:  b("replay all", "E"),
		Trim:       b("trim", "t"),
		Rejudge:    b("rejudge", "J"),
		Cancel:     b("cancel", "X"),
		Verify:     b("verify", "v"),
		Remove:     b("remove", "D"),
		Drain:      b("drain", "D"),
		Disable:    b("disable", "O"),
		Enable:     b("enable", "A"),
		Yes:        b("yes", "y", "Y"),
		No:         key.NewBinding(key.WithKeys("n", "N", "esc", "enter"), key.WithHelp("n", "no")),
	}
	return m
}

// Table is the key map handed to bubbles' table: the navigation bindings only (space is
// "mark" here, not "page down" as in bubbles' default).
func (m Map) Table() table.KeyMap {
	return table.KeyMap{
		LineUp:       m.Up,
		LineDown:     m.Down,
		PageUp:       m.PageUp,
		PageDown:     m.PageDown,
		HalfPageUp:   key.NewBinding(key.WithKeys("ctrl+u")),
		HalfPageDown: key.NewBinding(key.WithKeys("ctrl+d")),
		GotoTop:      m.Top,
		GotoBottom:   m.Bottom,
	}
}

// Help is a help.KeyMap: the global bindings plus the current view's extra ones.
type Help struct {
	Map   Map
	Extra []key.Binding
}

// ShortHelp is the always-visible help bar.
func (h Help) ShortHelp() []key.Binding {
	out := []key.Binding{h.Map.Jump, h.Map.Filter, h.Map.Detail}
	out = append(out, h.Extra...)
	return append(out, h.Map.Help, h.Map.Quit, h.Map.Refresh, h.Map.Pause)
}

// FullHelp is the "?" screen, in columns.
func (h Help) FullHelp() [][]key.Binding {
	m := h.Map
	cols := [][]key.Binding{
		{m.Up, m.Down, m.PageUp, m.PageDown, m.Top, m.Bottom},
		{m.Jump, m.NextTab, m.PrevTab, m.Filter, m.Mark, m.Detail, m.Back},
		{m.Refresh, m.Pause, m.Help, m.Quit},
	}
	if len(h.Extra) > 0 {
		cols = append(cols, h.Extra)
	}
	return cols
}
