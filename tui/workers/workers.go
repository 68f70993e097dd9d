// Package workers is the dashboard's Workers view (from GET /admin/v1/workers): each
// worker's state, lanes, languages, when it was last seen, the submissions it holds and
// its recent system errors, with drain, disable and enable of the selected worker behind
// the confirmation every action has.
package workers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"oj/core/wire"
	"oj/tui/listview"
	"oj/tui/shared"
)

// Model is the Workers view.
type Model struct {
	ctx    *shared.Context
	list   listview.Model
	width  int
	byName map[string]wire.WorkerInfo
	leases map[string]wire.LeaseSummary
}

// New returns the view.
func New(ctx *shared.Context) *Model {
	cols := []listview.Column{
		{Title: "WORKER", Width: 12, Flex: true}, {Title: "STATE", Width: 11}, {Title: "LIVE", Width: 4},
		{Title: "LANES", Width: 24, Narrow: 9}, {Title: "LANGUAGES", Width: 32, Narrow: 10}, {Title: "SEEN", Width: 6},
		{Title: "FLIGHT", Width: 6}, {Title: "ERRS", Width: 4},
	}
	return &Model{ctx: ctx, list: listview.New(ctx, cols, false, "no worker has announced itself"),
		byName: map[string]wire.WorkerInfo{}, leases: map[string]wire.LeaseSummary{}}
}

// Name is "workers".
func (m *Model) Name() string { return "workers" }

// SetSnapshot shows the snapshot's workers.
func (m *Model) SetSnapshot(s *shared.Snapshot) {
	if s.Workers == nil {
		return
	}
	now := m.ctx.Now()
	m.byName = map[string]wire.WorkerInfo{}
	m.leases = map[string]wire.LeaseSummary{}
	for _, l := range s.Workers.Leases {
		m.leases[l.Owner] = l
	}
	rows := make([]listview.Row, 0, len(s.Workers.Workers))
	for _, w := range s.Workers.Workers {
		m.byName[w.Name] = w
		live := "no"
		if w.Live {
			live = "yes"
		}
		rows = append(rows, listview.Row{ID: w.Name, Cells: []string{w.Name, state(w), live, lanes(w.Lanes),
			languages(w.Languages), shared.Ago(now, w.LastSeen), shared.Num(int64(w.InFlight)),
			shared.Num(int64(len(w.RecentErrors)))}})
	}
	m.list.SetRows(rows)
	if r, ok := m.list.Selected(); ok && m.list.DetailOpen() {
		m.list.SetDetail("worker "+r.ID, m.detail(r.ID))
	}
}

// state is the worker's state; a draining worker that holds nothing is "drained".
func state(w wire.WorkerInfo) string {
	if w.State == "draining" && w.InFlight == 0 {
		return "drained"
	}
	return w.State
}

func lanes(ls map[string]int) string {
	names := make([]string, 0, len(ls))
	for l := range ls {
		names = append(names, l)
	}
	sort.Strings(names)
	for i, l := range names {
		names[i] = fmt.Sprintf("%s:%d", l, ls[l])
	}
	return strings.Join(names, " ")
}

func languages(ls []string) string {
	if ls == nil {
		return "any"
	}
	return strings.Join(ls, ",")
}

// SetSize gives the view its space.
func (m *Model) SetSize(w, h int) { m.width = w; m.list.SetSize(w, h) }

// Capturing reports that the filter is open.
func (m *Model) Capturing() bool { return m.list.Capturing() }

// Back closes the filter or the detail.
func (m *Model) Back() bool { return m.list.Back() }

// Keys are the view's actions.
func (m *Model) Keys() []key.Binding {
	k := m.ctx.Keys
	return m.ctx.ActionKeys(k.Drain, k.Disable, k.Enable)
}

// Update opens a worker's detail and asks for drains, disables and enables.
func (m *Model) Update(msg tea.Msg) (shared.View, tea.Cmd) {
	km := m.ctx.Keys
	if msg, ok := msg.(tea.KeyMsg); ok && !m.list.Capturing() && !m.list.DetailOpen() {
		r, selected := m.list.Selected()
		switch {
		case key.Matches(msg, km.Detail) && selected:
			m.list.OpenDetail("worker "+r.ID, m.detail(r.ID))
			return m, nil
		case key.Matches(msg, km.Drain) && selected && !m.ctx.ReadOnly:
			return m, setState(m.ctx, r.ID, "drain", "it finishes what it holds and claims nothing new")
		case key.Matches(msg, km.Disable) && selected && !m.ctx.ReadOnly:
			return m, setState(m.ctx, r.ID, "disable", "it claims nothing and gives back what it is judging")
		case key.Matches(msg, km.Enable) && selected && !m.ctx.ReadOnly:
			return m, setState(m.ctx, r.ID, "enable", "it claims and judges again")
		}
	}
	return m, m.list.Update(msg)
}

// detail is a worker's detail pane: its state and why, what it runs, what it holds, and
// its recent system errors.
func (m *Model) detail(name string) string {
	w, ok := m.byName[name]
	if !ok {
		return "no worker " + name
	}
	st := m.ctx.Styles
	now := m.ctx.Now()
	var b strings.Builder
	line := func(label, value string) {
		fmt.Fprintf(&b, "%s %s\n", st.Label.Render(fmt.Sprintf("%-12s", label)), value)
	}
	line("State", state(w))
	if w.Reason != "" {
		for i, l := range shared.Wrap(shared.Safe(w.Reason), max(20, m.width-14)) {
			if i == 0 {
				line("Reason", l)
			} else {
				line("", l)
			}
		}
	}
	if w.StateBy != "" && w.StateAt != nil {
		line("Set by", fmt.Sprintf("%s, %s ago", w.StateBy, shared.Ago(now, *w.StateAt)))
	}
	line("Live", fmt.Sprintf("%v (last seen %s ago)", w.Live, shared.Ago(now, w.LastSeen)))
	if w.StoppedAt != nil {
		line("Stopped", shared.Ago(now, *w.StoppedAt)+" ago")
	}
	line("Started", shared.Ago(now, w.StartedAt)+" ago")
	line("Lanes", lanes(w.Lanes))
	line("Languages", languages(w.Languages))
	held := fmt.Sprintf("%d submissions", w.InFlight)
	if l, ok := m.leases[name]; ok && l.Expired > 0 {
		held += fmt.Sprintf(" (%d with an expired lease, left to reclaim)", l.Expired)
	}
	line("In flight", held)
	b.WriteString("\n" + st.Section.Render("Recent system errors") + "\n")
	if len(w.RecentErrors) == 0 {
		b.WriteString(st.Muted.Render("none") + "\n")
	}
	for _, e := range w.RecentErrors {
		fmt.Fprintf(&b, "%s ago  %s  %s\n", shared.Ago(now, e.At), shared.Short(e.SubmissionID, 8),
			shared.OneLine(e.Error, max(20, m.width-30)))
	}
	return b.String()
}

func setState(c *shared.Context, name, action, effect string) tea.Cmd {
	src := c.Source
	return shared.AskCall(action+" worker "+name,
		func(ctx context.Context, dry bool) (*wire.WorkerActionResult, error) {
			return src.SetWorkerState(ctx, name, action, "", dry)
		},
		func(r *wire.WorkerActionResult) (int, string) {
			return r.WouldChange, fmt.Sprintf("%s → %s: %s", r.From, r.To, effect)
		},
		func(r *wire.WorkerActionResult) string {
			return fmt.Sprintf("worker %s: %s → %s (obeyed within worker.state_poll)", name, r.From, r.To)
		})
}

// View renders the view.
func (m *Model) View() string { return m.list.View() }
