package submissions

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"oj/core/wire"
	"oj/tui/shared"
	"oj/tui/trace"
)

var (
	nextCase   = key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next case"))
	prevCase   = key.NewBinding(key.WithKeys("["), key.WithHelp("[", "prev case"))
	caseOutput = key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "case output"))
)

// caseNav is the trace open in the detail pane and the case selected in it; "o" shows
// that case's output in the pane, esc goes back to the trace.
type caseNav struct {
	trace   *wire.Trace
	sel     int  // the selected case's index; 0 when the trace has no cases
	showing bool // the pane shows the selected case's output
}

func (c *caseNav) reset() { *c = caseNav{} }

// traced shows a trace that arrived, selecting its first case that is not AC (the one
// worth reading), else its first case.
func (c *caseNav) traced(m *Model, t *wire.Trace) {
	if m.list.DetailTitle() != "trace "+t.Submission.ID || c.showing {
		return // the pane moved on while the trace was on its way
	}
	c.trace, c.sel = t, 0
	for _, cs := range t.Submission.Cases {
		if cs.Verdict != "AC" {
			c.sel = cs.Index
			break
		}
	}
	if c.sel == 0 && len(t.Submission.Cases) > 0 {
		c.sel = t.Submission.Cases[0].Index
	}
	m.list.SetDetail("trace "+t.Submission.ID, c.render(m))
}

func (c *caseNav) render(m *Model) string {
	return trace.RenderSelected(m.ctx.Styles, c.trace, m.width, c.sel)
}

// key handles the case keys while the trace is shown.
func (c *caseNav) key(m *Model, k tea.KeyMsg) (bool, tea.Cmd) {
	if c.trace == nil || c.showing || c.sel == 0 {
		return false, nil
	}
	cases := c.trace.Submission.Cases
	at := 0
	for i, cs := range cases {
		if cs.Index == c.sel {
			at = i
		}
	}
	switch {
	case key.Matches(k, nextCase):
		c.sel = cases[min(at+1, len(cases)-1)].Index
	case key.Matches(k, prevCase):
		c.sel = cases[max(at-1, 0)].Index
	case key.Matches(k, caseOutput):
		c.showing = true
		id := c.trace.Submission.ID
		m.list.OpenDetail(trace.CaseTitle(id, c.sel), fmt.Sprintf("loading the output of case %d…", c.sel))
		return true, m.ctx.FetchCase(id, c.sel)
	default:
		return false, nil
	}
	m.list.SetDetail("trace "+c.trace.Submission.ID, c.render(m))
	return true, nil
}

// arrived shows a case that was fetched, if the pane still waits for it.
func (c *caseNav) arrived(m *Model, msg shared.CaseMsg) {
	title := trace.CaseTitle(msg.ID, msg.N)
	if !c.showing || m.list.DetailTitle() != title {
		return
	}
	if msg.Err != nil {
		m.list.SetDetail(title, m.ctx.Styles.Error.Render("case output: "+msg.Err.Error()))
		return
	}
	m.list.SetDetail(title, trace.RenderCase(m.ctx.Styles, msg.Detail, m.width))
}

// backToTrace leaves a case's output for its trace; false when no case output is shown.
func (c *caseNav) backToTrace(m *Model) bool {
	if !c.showing || c.trace == nil || !m.list.DetailOpen() {
		return false
	}
	c.showing = false
	m.list.OpenDetail("trace "+c.trace.Submission.ID, c.render(m))
	return true
}

// keys are the case keys while a trace with cases is shown.
func (c *caseNav) keys(m *Model) []key.Binding {
	if c.trace == nil || c.sel == 0 || c.showing || !m.list.DetailOpen() {
		return nil
	}
	return []key.Binding{prevCase, nextCase, caseOutput}
}
