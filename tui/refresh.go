package tui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"golang.org/x/sync/errgroup"

	"oj/core/wire"
	"oj/tui/shared"
)

// Page sizes of one refresh: enough to fill a tall terminal and to filter in, small
// enough that a refresh stays cheap with a 10,000-entry PEL.
const (
	pelLimit    = 500
	outboxLimit = 200
	dlqLimit    = 500
	auditLimit  = 200
	// submissionsLimit is the API's maximum page of GET /admin/v1/submissions.
	submissionsLimit = 500
)

// tickMsg drives the refresh loop; gen tells the live loop from stale ones.
type tickMsg struct{ gen int }

// dataMsg is the result of one refresh.
type dataMsg struct {
	snap *shared.Snapshot
	err  error
}

func tick(d time.Duration, gen int) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return tickMsg{gen: gen} })
}

// Fetch does every call of one refresh, concurrently, and returns the snapshot: the
// unit the "Speed" benchmark measures (together with Update and View).
func Fetch(ctx context.Context, src shared.Source, now func() time.Time) (*shared.Snapshot, error) {
	s := &shared.Snapshot{}
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) { s.Overview, err = src.Overview(ctx); return })
	g.Go(func() (err error) { s.PEL, err = src.PEL(ctx, "", 0, pelLimit); return })
	g.Go(func() (err error) { s.Outbox, err = src.Outbox(ctx, outboxLimit); return })
	g.Go(func() (err error) { s.DLQ, err = src.DLQ(ctx, dlqLimit, ""); return })
	g.Go(func() (err error) {
		s.Submissions, err = src.Submissions(ctx, wire.ListSubmissionsQuery{Limit: submissionsLimit})
		return
	})
	g.Go(func() (err error) { s.Workers, err = src.Workers(ctx); return })
	g.Go(func() (err error) { s.Audit, err = src.Audit(ctx, auditLimit); return })
	g.Go(func() (err error) { s.Webhooks, err = src.Webhooks(ctx); return })
	g.Go(func() (err error) { s.Problems, err = src.Problems(ctx, ""); return })
	if err := g.Wait(); err != nil {
		return nil, err
	}
	s.At = now()
	return s, nil
}

func (m *Model) fetch() tea.Cmd {
	m.refreshing = true
	src, now, timeout := m.ctx.Source, m.ctx.Now, m.ctx.CallTimeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		s, err := Fetch(ctx, src, now)
		return dataMsg{snap: s, err: err}
	}
}

// RefreshMsg is the message a finished refresh sends to the root model: for benchmarks
// that drive Fetch themselves.
func RefreshMsg(s *shared.Snapshot, err error) tea.Msg { return dataMsg{snap: s, err: err} }
