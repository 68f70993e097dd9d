// Package submissions is the dashboard's Submissions view: the submissions the admin
// endpoints mention (dead letters, pending entries, outbox rows, audited actions), each
// with its trace in the detail pane, and rejudge and cancel.
//
// The API has no endpoint listing recent submissions, so the list is gathered from what
// the other admin endpoints carry; a GET /admin/v1/submissions?state=&limit= would let
// this view show every recent submission.
package submissions

import (
	"context"
	"fmt"
	"sort"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"oj/tui/listview"
	"oj/tui/shared"
	"oj/tui/trace"
)

// Model is the Submissions view.
type Model struct {
	ctx   *shared.Context
	list  listview.Model
	width int
	// known keeps the state and verdict of submissions whose trace was opened.
	known map[string]string
	snap  *shared.Snapshot
}

// New returns the view.
func New(ctx *shared.Context) *Model {
	cols := []listview.Column{
		{Title: "SUBMISSION", Width: 36, Narrow: 13}, {Title: "SEEN IN", Width: 9}, {Title: "LANE", Width: 7},
		{Title: "STATE", Width: 14, Narrow: 11}, {Title: "NOTE", Width: 10, Flex: true},
	}
	return &Model{ctx: ctx, list: listview.New(ctx, cols, false, "no submission in the DLQ, PEL, outbox or audit log"),
		known: map[string]string{}}
}

// Name is "submissions".
func (m *Model) Name() string { return "submissions" }

type entry struct {
	id, seen, lane, state, note string
	order                       int
}

// SetSnapshot gathers the submissions the snapshot mentions.
func (m *Model) SetSnapshot(s *shared.Snapshot) {
	m.snap = s
	m.rebuild()
}

func (m *Model) rebuild() {
	s := m.snap
	if s == nil {
		return
	}
	now := m.ctx.Now()
	byID := map[string]*entry{}
	add := func(id, seen, lane, state, note string) {
		if id == "" {
			return
		}
		if e, ok := byID[id]; ok {
			if e.lane == "" {
				e.lane = lane
			}
			return
		}
		byID[id] = &entry{id: id, seen: seen, lane: lane, state: state, note: note, order: len(byID)}
	}
	for _, e := range s.PEL {
		add(e.SubmissionID, "pel", e.Lane, "in flight", fmt.Sprintf("%s, idle %s, %d deliveries", e.Consumer, shared.MS(e.IdleMS), e.Deliveries))
	}
	if s.Outbox != nil {
		for _, r := range s.Outbox.Rows {
			add(r.SubmissionID, "outbox", r.Lane, "queued", r.Kind+" waiting "+shared.Ago(now, r.CreatedAt))
		}
	}
	if s.DLQ != nil {
		for _, d := range s.DLQ.Items {
			add(d.SubmissionID, "dlq", d.Lane, "dead", shared.OneLine(d.LastError, 200))
		}
	}
	for _, a := range s.Audit {
		note := a.Action + " by " + a.Actor + " " + shared.Ago(now, a.At) + " ago"
		if id, ok := a.Params["submission_id"].(string); ok {
			add(id, "audit", "", "", note)
		}
		if ids, ok := a.Params["ids"].([]any); ok {
			for _, v := range ids {
				if id, ok := v.(string); ok {
					add(id, "audit", "", "", note)
				}
			}
		}
	}
	list := make([]*entry, 0, len(byID))
	for _, e := range byID {
		list = append(list, e)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].order < list[j].order })
	rows := make([]listview.Row, len(list))
	for i, e := range list {
		state := e.state
		if k, ok := m.known[e.id]; ok {
			state = k
		}
		if state == "" {
			state = "?"
		}
		rows[i] = listview.Row{ID: e.id, Cells: []string{e.id, e.seen, e.lane, state, e.note}}
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
	return m.ctx.ActionKeys(m.ctx.Keys.Rejudge, m.ctx.Keys.Cancel)
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
		st := msg.Trace.Submission.State
		if v := msg.Trace.Submission.Verdict; v != nil {
			st += " " + *v
		}
		m.known[msg.ID] = st
		m.rebuild()
		m.list.SetDetail("trace "+msg.ID, trace.Render(m.ctx.Styles, msg.Trace, m.width))
		return m, nil
	case tea.KeyMsg:
		if m.list.Capturing() || m.list.DetailOpen() {
			break
		}
		r, sel := m.list.Selected()
		switch {
		case key.Matches(msg, km.Detail) && sel:
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
	return shared.Ask(shared.Action{
		Title: "rejudge submission " + shared.Short(id, 8) + " on the rejudge lane",
		DryRun: func(ctx context.Context) (int, string, error) {
			r, err := src.RejudgeSubmission(ctx, id, true)
			if err != nil {
				return 0, "", err
			}
			return r.Rejudged, fmt.Sprintf("%d submission would be rejudged", r.Rejudged), nil
		},
		Do: func(ctx context.Context) (string, error) {
			r, err := src.RejudgeSubmission(ctx, id, false)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("rejudged %d of %d", r.Rejudged, max(r.Requested, 1)), nil
		},
	})
}

func (m *Model) cancel(id string) tea.Cmd {
	src := m.ctx.Source
	return shared.Ask(shared.Action{
		Title: "cancel submission " + shared.Short(id, 8),
		DryRun: func(ctx context.Context) (int, string, error) {
			r, err := src.Cancel(ctx, id, true)
			if err != nil {
				return 0, "", err
			}
			return r.Canceled, fmt.Sprintf("%d submission would be canceled", r.Canceled), nil
		},
		Do: func(ctx context.Context) (string, error) {
			r, err := src.Cancel(ctx, id, false)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("canceled %d submission", r.Canceled), nil
		},
	})
}

// View renders the view.
func (m *Model) View() string { return m.list.View() }
