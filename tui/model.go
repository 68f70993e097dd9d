package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"oj/tui/audit"
	"oj/tui/consumers"
	"oj/tui/dlq"
	"oj/tui/keys"
	"oj/tui/outbox"
	"oj/tui/overview"
	"oj/tui/pel"
	"oj/tui/shared"
	"oj/tui/styles"
	"oj/tui/submissions"
	"oj/tui/workers"
)

// Config builds a Model: what Options say plus what tests replace (clock, styles).
type Config struct {
	Source   shared.Source
	Server   string
	Refresh  time.Duration
	ReadOnly bool
	Styles   styles.Styles
	Now      func() time.Time
}

// MinRefresh is the fastest refresh allowed; DefaultRefresh is used when none is given.
const (
	MinRefresh     = time.Second
	DefaultRefresh = 2 * time.Second
)

// Model is the root model: header, tab line, the current view, status line, help bar,
// and the dialogs (":" jump, "?" help, y/N confirm) over them.
type Model struct {
	ctx      *shared.Context
	views    []shared.View
	cur      int
	interval time.Duration

	snap       *shared.Snapshot
	lastOK     time.Time
	lastErr    error
	refreshing bool
	paused     bool
	gen        int

	width, height int
	help          help.Model
	showHelp      bool
	jump          textinput.Model
	jumping       bool
	confirm       *confirm
	flash         string
	flashErr      bool
}

// confirm is the y/N dialog of an action: first its dry run runs, then it asks.
type confirm struct {
	action shared.Action
	asking bool // the dry run answered
	count  int
	desc   string
	doing  bool
}

type dryRunMsg struct {
	count int
	desc  string
	err   error
}

type doneMsg struct {
	summary string
	err     error
}

// New returns the root model.
func New(c Config) *Model {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Styles.Renderer == nil {
		c.Styles = styles.Plain()
	}
	interval := c.Refresh
	if interval == 0 {
		interval = DefaultRefresh
	}
	interval = max(interval, MinRefresh)
	ctx := &shared.Context{Source: c.Source, Server: c.Server, ReadOnly: c.ReadOnly, Now: c.Now, Styles: c.Styles,
		Keys: keys.Default(), CallTimeout: max(5*time.Second, interval)}
	m := &Model{ctx: ctx, interval: interval, help: help.New(), jump: textinput.New()}
	m.help.Styles = c.Styles.Help
	m.views = []shared.View{overview.New(ctx), pel.New(ctx), consumers.New(ctx), outbox.New(ctx), dlq.New(ctx),
		submissions.New(ctx), workers.New(ctx), audit.New(ctx)}
	names := make([]string, len(m.views))
	for i, v := range m.views {
		names[i] = v.Name()
	}
	m.jump.Prompt = ":"
	m.jump.ShowSuggestions = true
	m.jump.SetSuggestions(names)
	m.jump.CharLimit = 20
	m.jump.Cursor.SetMode(cursor.CursorStatic)
	m.jump.PromptStyle, m.jump.TextStyle, m.jump.CompletionStyle = c.Styles.Section, c.Styles.Header, c.Styles.Muted
	m.jump.Cursor.Style = c.Styles.Header
	m.SetSize(80, 24)
	return m
}

// Init starts the first refresh and the refresh loop.
func (m *Model) Init() tea.Cmd { return tea.Batch(m.fetch(), tick(m.interval, m.gen)) }

// SetSize lays the views out for a w×h terminal.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = max(w, 20), max(h, 8)
	m.help.Width = m.width
	m.jump.Width = m.width - 4
	for _, v := range m.views {
		v.SetSize(m.width, m.bodyHeight())
	}
}

// header, tab line, status line, help bar
func (m *Model) bodyHeight() int { return m.height - 4 }

// Current is the view shown.
func (m *Model) Current() shared.View { return m.views[m.cur] }

// Update is Bubble Tea's update.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.SetSize(msg.Width, msg.Height)
		return m, nil
	case tickMsg:
		if msg.gen != m.gen {
			return m, nil
		}
		cmds := []tea.Cmd{tick(m.interval, m.gen)}
		if !m.paused && !m.refreshing {
			cmds = append(cmds, m.fetch())
		}
		return m, tea.Batch(cmds...)
	case dataMsg:
		m.refreshing = false
		if msg.err != nil {
			m.lastErr = msg.err
			return m, nil
		}
		m.lastErr = nil
		m.snap, m.lastOK = msg.snap, m.ctx.Now()
		for _, v := range m.views {
			v.SetSnapshot(msg.snap)
		}
		return m, nil
	case shared.AskMsg:
		if m.ctx.ReadOnly {
			m.setFlash("read-only: "+msg.Action.Title+" refused", true)
			return m, nil
		}
		m.confirm = &confirm{action: msg.Action}
		return m, m.dryRun(msg.Action)
	case dryRunMsg:
		if m.confirm == nil {
			return m, nil
		}
		if msg.err != nil {
			m.setFlash(m.confirm.action.Title+": dry run failed: "+msg.err.Error(), true)
			m.confirm = nil
			return m, nil
		}
		m.confirm.asking, m.confirm.count, m.confirm.desc = true, msg.count, msg.desc
		return m, nil
	case doneMsg:
		title := ""
		if m.confirm != nil {
			title = m.confirm.action.Title + ": "
		}
		m.confirm = nil
		if msg.err != nil {
			m.setFlash(title+"failed: "+msg.err.Error(), true)
		} else {
			m.setFlash(msg.summary, false)
		}
		if m.refreshing {
			return m, nil
		}
		return m, m.fetch()
	case tea.KeyMsg:
		return m.key(msg)
	}
	v, cmd := m.Current().Update(msg)
	m.views[m.cur] = v
	return m, cmd
}

func (m *Model) setFlash(s string, isErr bool) { m.flash, m.flashErr = s, isErr }

func (m *Model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	km := m.ctx.Keys
	if k.Type == tea.KeyCtrlC {
		return m, tea.Quit
	}
	switch {
	case m.confirm != nil:
		if !m.confirm.asking || m.confirm.doing {
			return m, nil // waiting for the server
		}
		if key.Matches(k, km.Yes) {
			m.confirm.doing = true
			return m, m.do(m.confirm.action)
		}
		m.setFlash(m.confirm.action.Title+": not done", false)
		m.confirm = nil
		return m, nil
	case m.jumping:
		switch k.Type {
		case tea.KeyEnter:
			m.jumping = false
			m.jump.Blur()
			m.goTo(m.jump.Value())
			return m, nil
		case tea.KeyEsc:
			m.jumping = false
			m.jump.Blur()
			return m, nil
		}
		var cmd tea.Cmd
		m.jump, cmd = m.jump.Update(k)
		return m, cmd
	case m.showHelp:
		if key.Matches(k, km.Quit) && k.String() == "q" {
			return m, tea.Quit
		}
		m.showHelp = false
		return m, nil
	case m.Current().Capturing():
		v, cmd := m.Current().Update(k)
		m.views[m.cur] = v
		return m, cmd
	}
	switch {
	case key.Matches(k, km.Quit):
		return m, tea.Quit
	case key.Matches(k, km.Jump):
		m.jumping = true
		m.jump.SetValue("")
		return m, m.jump.Focus()
	case key.Matches(k, km.Help):
		m.showHelp = true
		return m, nil
	case key.Matches(k, km.Refresh):
		m.setFlash("", false)
		if m.refreshing {
			return m, nil
		}
		return m, m.fetch()
	case key.Matches(k, km.Pause):
		m.paused = !m.paused
		return m, nil
	case key.Matches(k, km.NextTab):
		m.cur = (m.cur + 1) % len(m.views)
		return m, nil
	case key.Matches(k, km.PrevTab):
		m.cur = (m.cur + len(m.views) - 1) % len(m.views)
		return m, nil
	case key.Matches(k, km.Back):
		if !m.Current().Back() {
			m.setFlash("", false)
		}
		return m, nil
	}
	v, cmd := m.Current().Update(k)
	m.views[m.cur] = v
	return m, cmd
}

// goTo switches to the view whose name starts with name (":dl" is the DLQ view).
func (m *Model) goTo(name string) {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return
	}
	for i, v := range m.views {
		if strings.HasPrefix(v.Name(), name) {
			m.cur = i
			m.setFlash("", false)
			return
		}
	}
	m.setFlash("no view "+name+" (views: "+m.viewNames()+")", true)
}

func (m *Model) viewNames() string {
	names := make([]string, len(m.views))
	for i, v := range m.views {
		names[i] = v.Name()
	}
	return strings.Join(names, ", ")
}

func (m *Model) dryRun(a shared.Action) tea.Cmd {
	timeout := m.ctx.CallTimeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		n, desc, err := a.DryRun(ctx)
		return dryRunMsg{count: n, desc: desc, err: err}
	}
}

func (m *Model) do(a shared.Action) tea.Cmd {
	timeout := m.ctx.CallTimeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		s, err := a.Do(ctx)
		return doneMsg{summary: s, err: err}
	}
}

// View renders the whole screen in exactly width×height.
func (m *Model) View() string {
	st := m.ctx.Styles
	body := m.Current().View()
	if m.showHelp {
		body = st.Section.Render("Keys") + "  " + st.Muted.Render("(any key closes)") + "\n\n" +
			m.help.FullHelpView(keys.Help{Map: m.ctx.Keys, Extra: m.Current().Keys()}.FullHelp())
	}
	body = shared.Fit(body, m.width, m.bodyHeight())
	if m.confirm != nil {
		body = overlay(body, m.dialog(), m.width)
	}
	var status string
	switch {
	case m.jumping:
		status = m.jump.View()
	case m.flash != "" && m.flashErr:
		status = st.Error.Render(m.flash)
	case m.flash != "":
		status = st.Flash.Render(m.flash)
	}
	bar := m.help.ShortHelpView(keys.Help{Map: m.ctx.Keys, Extra: m.Current().Keys()}.ShortHelp())
	return shared.Fit(strings.Join([]string{m.header(), m.tabs(), body, status, bar}, "\n"), m.width, m.height)
}

func (m *Model) header() string {
	st := m.ctx.Styles
	now := m.ctx.Now()
	var state string
	switch {
	case m.lastErr != nil && m.lastOK.IsZero():
		state = st.Stale.Render("OFFLINE: " + shortErr(m.lastErr))
	case m.lastErr != nil:
		state = st.Stale.Render(fmt.Sprintf("STALE %s: ", shared.Ago(now, m.lastOK))) + st.Error.Render(shortErr(m.lastErr))
	case m.lastOK.IsZero():
		state = st.Muted.Render("connecting…")
	default:
		state = st.Live.Render("● live") + st.Muted.Render(" "+shared.Ago(now, m.lastOK)+" ago")
	}
	if m.paused {
		state = st.Paused.Render("⏸ PAUSED ") + state
	}
	head := st.Title.Render("ojctl") + " " + st.Muted.Render(m.ctx.Server) + "  " + state
	if m.ctx.ReadOnly {
		head += "  " + st.ReadOnly.Render("[READ-ONLY]")
	}
	return head
}

// shortErr is the reason without the client's method and URL prefix (the header shows
// the server already).
func shortErr(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": dial tcp"); i >= 0 {
		s = s[i+2:]
	}
	return shared.OneLine(s, 120)
}

func (m *Model) tabs() string {
	st := m.ctx.Styles
	parts := make([]string, len(m.views))
	for i, v := range m.views {
		if i == m.cur {
			parts[i] = st.TabOn.Render(strings.ToUpper(v.Name()))
		} else {
			parts[i] = st.Tab.Render(v.Name())
		}
	}
	return strings.Join(parts, " ")
}

func (m *Model) dialog() string {
	st := m.ctx.Styles
	c := m.confirm
	w := min(m.width-6, 70)
	var lines []string
	lines = append(lines, st.Section.Render(shared.OneLine(c.action.Title, w)))
	switch {
	case c.doing:
		lines = append(lines, "", "working…")
	case !c.asking:
		lines = append(lines, "", "dry run…")
	default:
		lines = append(lines, "", fmt.Sprintf("dry run: %d", c.count), shared.OneLine(c.desc, w), "", st.Mark.Render("Proceed? [y/N]"))
	}
	return st.Dialog.Width(w).Render(strings.Join(lines, "\n"))
}

// overlay puts box in the middle of body, line by line.
func overlay(body, box string, width int) string {
	bl := strings.Split(body, "\n")
	xl := strings.Split(box, "\n")
	top := max(0, (len(bl)-len(xl))/2)
	for i, l := range xl {
		if top+i >= len(bl) {
			break
		}
		pad := max(0, (width-lipgloss.Width(l))/2)
		bl[top+i] = strings.Repeat(" ", pad) + l
	}
	return strings.Join(bl, "\n")
}
