package shared

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"oj/core/wire"
)

// CaseMsg is the answer of a case fetch started by a view: one case of a submission with
// what the solution wrote (GET /api/v1/submissions/{id}/cases/{n}).
type CaseMsg struct {
	ID     string
	N      int
	Detail *wire.CaseDetail
	Err    error
}

// FetchCase returns a command that fetches case n of submission id.
func (c *Context) FetchCase(id string, n int) tea.Cmd {
	src, timeout := c.Source, c.CallTimeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		d, err := src.Case(ctx, id, n)
		return CaseMsg{ID: id, N: n, Detail: d, Err: err}
	}
}
