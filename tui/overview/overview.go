// Package overview is the dashboard's first view: per lane the submissions waiting for
// their turn in the outbox, the stream length, pending count, oldest pending idle time,
// lag and consumers; the outbox backlog and its oldest
// age; dead letters; verdicts per second — each with a sparkline of its recent values,
// kept in the model from refresh to refresh.
package overview

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"oj/core/wire"
	"oj/tui/listview"
	"oj/tui/pel"
	"oj/tui/shared"
)

// History is how many refreshes the sparklines keep (4 minutes at the default 2 s).
const History = 120

type laneSeries struct{ waiting, length, pending, idle, lag, consumers *shared.Series }

// Model is the Overview view.
type Model struct {
	ctx           *shared.Context
	lanesList     listview.Model
	width, height int

	ov       *wire.Overview
	lastAt   time.Time
	lanes    map[string]*laneSeries
	backlog  *shared.Series
	oldest   *shared.Series
	dead     *shared.Series
	verdicts *shared.Series
	// finished and finishedAt are the previous refresh's count of finished submissions,
	// from which verdicts per second are derived.
	finished   int64
	finishedAt time.Time
	rate       float64
	rateKnown  bool
}

// New returns the view.
func New(ctx *shared.Context) *Model {
	cols := []listview.Column{
		{Title: "LANE", Width: 7}, {Title: "WAITING", Width: 7}, {Title: "LENGTH", Width: 9}, {Title: "PENDING", Width: 7}, {Title: "OLDEST", Width: 7},
		{Title: "LAG", Width: 6}, {Title: "CONS", Width: 4}, {Title: "PENDING · LAG TREND", Width: 9, Flex: true},
	}
	return &Model{ctx: ctx, lanesList: listview.New(ctx, cols, false, "no lanes reported"), lanes: map[string]*laneSeries{},
		backlog: shared.NewSeries(History), oldest: shared.NewSeries(History), dead: shared.NewSeries(History),
		verdicts: shared.NewSeries(History)}
}

// Name is "overview".
func (m *Model) Name() string { return "overview" }

// SetSnapshot records the overview's values in the sparklines and shows them.
func (m *Model) SetSnapshot(s *shared.Snapshot) {
	ov := s.Overview
	if ov == nil {
		return
	}
	// The lanes table is as tall as the lanes it has: a snapshot with more (or fewer)
	// lanes than the last resizes it, or a lane (the run lane, say) would be cut off.
	resize := m.ov == nil || len(m.ov.Lanes) != len(ov.Lanes)
	m.ov = ov
	at := ov.At
	if at.IsZero() {
		at = s.At
	}
	if !at.Equal(m.lastAt) {
		m.lastAt = at
		m.record(ov, at)
	}
	if resize && m.width > 0 {
		m.SetSize(m.width, m.height) // which draws the rows
		return
	}
	m.rows()
}

func (m *Model) record(ov *wire.Overview, at time.Time) {
	for _, l := range ov.Lanes {
		ls := m.lanes[l.Lane]
		if ls == nil {
			ls = &laneSeries{shared.NewSeries(History), shared.NewSeries(History), shared.NewSeries(History),
				shared.NewSeries(History), shared.NewSeries(History), shared.NewSeries(History)}
			m.lanes[l.Lane] = ls
		}
		ls.waiting.Add(float64(l.Waiting))
		ls.length.Add(float64(l.Length))
		ls.pending.Add(float64(l.Pending))
		ls.idle.Add(float64(l.OldestPendingIdle))
		ls.lag.Add(float64(l.Lag))
		ls.consumers.Add(float64(l.Consumers))
	}
	m.backlog.Add(float64(ov.Outbox.Backlog))
	m.oldest.Add(float64(ov.Outbox.OldestAgeMS))
	m.dead.Add(float64(ov.DeadLetters))
	var finished int64
	for _, c := range ov.Submissions {
		if c.State == "finished" {
			finished = c.Count
		}
	}
	if !m.finishedAt.IsZero() {
		if dt := at.Sub(m.finishedAt).Seconds(); dt > 0 {
			m.rate = max(0, float64(finished-m.finished)/dt)
			m.rateKnown = true
			m.verdicts.Add(m.rate)
		}
	}
	m.finished, m.finishedAt = finished, at
}

func (m *Model) rows() {
	if m.ov == nil {
		return
	}
	w := max(4, (m.trendWidth()-1)/2)
	rows := make([]listview.Row, len(m.ov.Lanes))
	for i, l := range m.ov.Lanes {
		ls := m.lanes[l.Lane]
		lag := shared.Num(l.Lag)
		if !l.GroupExists {
			lag = "no group"
		}
		rows[i] = listview.Row{ID: l.Lane, Cells: []string{l.Lane, shared.Num(l.Waiting), shared.Num(l.Length), shared.Num(l.Pending), shared.MS(l.OldestPendingIdle),
			lag, shared.Num(l.Consumers), fmt.Sprintf("%-*s %s", w, ls.pending.Spark(w), ls.lag.Spark(w))}}
	}
	m.lanesList.SetRows(rows)
}

// trendWidth is the width of the trend column (what the flex column gets).
func (m *Model) trendWidth() int { return max(9, m.width-2*8-(7+7+9+7+7+6+4)) }

// SetSize gives the view its space: the lanes table on top, the totals below.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	n := 3
	if m.ov != nil {
		n = len(m.ov.Lanes)
	}
	m.lanesList.SetSize(w, max(4, min(h-7, n+3)))
	m.rows()
}

// Capturing reports that the filter is open.
func (m *Model) Capturing() bool { return m.lanesList.Capturing() }

// Back closes the filter or the detail.
func (m *Model) Back() bool { return m.lanesList.Back() }

// Keys are the view's actions.
func (m *Model) Keys() []key.Binding { return m.ctx.ActionKeys(m.ctx.Keys.Trim) }

// Update opens a lane's detail (every metric's sparkline) and asks for trims.
func (m *Model) Update(msg tea.Msg) (shared.View, tea.Cmd) {
	km := m.ctx.Keys
	if k, ok := msg.(tea.KeyMsg); ok && !m.lanesList.Capturing() && !m.lanesList.DetailOpen() {
		r, sel := m.lanesList.Selected()
		switch {
		case key.Matches(k, km.Detail) && sel:
			m.lanesList.SetSize(m.width, m.height)
			m.lanesList.OpenDetail("lane "+r.ID, m.laneDetail(r.ID))
			return m, nil
		case key.Matches(k, km.Trim) && sel && !m.ctx.ReadOnly:
			return m, pel.Trim(m.ctx, r.ID)
		}
	}
	cmd := m.lanesList.Update(msg)
	if !m.lanesList.DetailOpen() {
		m.SetSize(m.width, m.height)
	}
	return m, cmd
}

func (m *Model) laneDetail(lane string) string {
	ls := m.lanes[lane]
	if ls == nil {
		return "no data"
	}
	w := max(10, m.width-32)
	st := m.ctx.Styles
	line := func(name string, s *shared.Series, f func(float64) string) string {
		return fmt.Sprintf("%s %10s  %s", st.Label.Render(fmt.Sprintf("%-20s", name)), f(s.Last()), st.Spark.Render(s.Spark(w)))
	}
	num := func(v float64) string { return shared.Num(int64(v)) }
	ms := func(v float64) string { return shared.MS(int64(v)) }
	return strings.Join([]string{
		line("waiting (outbox)", ls.waiting, num),
		line("stream length", ls.length, num),
		line("pending", ls.pending, num),
		line("oldest pending idle", ls.idle, ms),
		line("lag", ls.lag, num),
		line("consumers", ls.consumers, num),
		"",
		st.Muted.Render(fmt.Sprintf("%d samples, newest on the right", ls.length.Len())),
	}, "\n")
}

// View renders the lanes table and the totals with their sparklines.
func (m *Model) View() string {
	if m.lanesList.DetailOpen() {
		return m.lanesList.View()
	}
	st := m.ctx.Styles
	if m.ov == nil {
		return shared.Fit(st.Muted.Render("waiting for the first overview…"), m.width, m.height)
	}
	w := max(8, m.width-40)
	line := func(name, value, extra string, s *shared.Series) string {
		return fmt.Sprintf("%s %10s %-14s %s", st.Label.Render(fmt.Sprintf("%-12s", name)), value, extra, st.Spark.Render(s.Spark(w)))
	}
	rate := "-"
	if m.rateKnown {
		rate = fmt.Sprintf("%.2f", m.rate)
	}
	dead := shared.Num(m.ov.DeadLetters)
	if m.ov.DeadEstimated {
		dead = "~" + dead
	}
	var states []string
	for _, c := range m.ov.Submissions {
		n := shared.Num(c.Count)
		if c.Estimated {
			n = "~" + n
		}
		states = append(states, c.State+" "+n)
	}
	lines := []string{
		m.lanesList.View(),
		line("outbox", shared.Num(m.ov.Outbox.Backlog), "oldest "+shared.MS(m.ov.Outbox.OldestAgeMS), m.backlog),
		line("dead letters", dead, "", m.dead),
		line("verdicts/s", rate, "", m.verdicts),
		st.Label.Render(fmt.Sprintf("%-12s ", "submissions")) + shared.OneLine(strings.Join(states, " · "), max(10, m.width-13)),
	}
	// Submissions no live worker can run wait in the outbox: say so, or the operator sees
	// only a queue that does not move.
	for _, w := range m.ov.NoWorker {
		lines = append(lines, st.Error.Render(fmt.Sprintf("%-12s ", "no worker"))+shared.OneLine(
			fmt.Sprintf("%s %s: %s (%s, oldest %s)", w.Lane, w.Language, w.Reason, shared.Num(w.Waiting), shared.MS(w.OldestWaitMS)),
			max(10, m.width-13)))
	}
	// A language whose live workers are all set apart (its only worker quarantined, say)
	// or that no live worker runs: its submissions will wait, even before any does.
	var unserved []string
	for _, l := range m.ov.Languages {
		switch {
		case l.Problem == "":
		case l.Live == 0:
			unserved = append(unserved, l.Language)
		default:
			lines = append(lines, st.Error.Render(fmt.Sprintf("%-12s ", "no active"))+shared.OneLine(l.Language+": "+l.Problem,
				max(10, m.width-13)))
		}
	}
	if len(unserved) > 0 {
		lines = append(lines, st.Label.Render(fmt.Sprintf("%-12s ", "no live wkr"))+shared.OneLine(strings.Join(unserved, ", "),
			max(10, m.width-13)))
	}
	if len(m.ov.Runs) > 0 {
		var runs []string
		for _, c := range m.ov.Runs {
			runs = append(runs, c.State+" "+shared.Num(c.Count))
		}
		lines = append(lines, st.Label.Render(fmt.Sprintf("%-12s ", "runs"))+shared.OneLine(strings.Join(runs, " · "), max(10, m.width-13)))
	}
	if o := m.ov.RunOrigins; len(o) > 1 || len(o) == 1 && o[0].Origin != "api" {
		var faces []string
		for _, c := range o {
			faces = append(faces, c.Origin+" "+shared.Num(c.Count))
		}
		lines = append(lines, st.Label.Render(fmt.Sprintf("%-12s ", "runs by face"))+shared.OneLine(strings.Join(faces, " · "), max(10, m.width-13)))
	}
	if cb := m.ov.RunCallbacks; cb.Pending > 0 || cb.Failed > 0 {
		style := st.Label
		if cb.Failed > 0 {
			style = st.Error
		}
		lines = append(lines, style.Render(fmt.Sprintf("%-12s ", "callbacks"))+shared.OneLine(fmt.Sprintf("%s pending (oldest %s) · %s failed",
			shared.Num(cb.Pending), (time.Duration(cb.OldestPendingMS)*time.Millisecond).Round(time.Second), shared.Num(cb.Failed)), max(10, m.width-13)))
	}
	lines = append(lines,
		st.Muted.Render("redis "+m.ov.RedisVersion+" · server time "+m.ov.At.UTC().Format("15:04:05")))
	return shared.Fit(strings.Join(lines, "\n"), m.width, m.height)
}
