package tui

import (
	"context"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"oj/tui/audit"
	"oj/tui/consumers"
	"oj/tui/dlq"
	"oj/tui/keys"
	"oj/tui/outbox"
	"oj/tui/overview"
	"oj/tui/pel"
	"oj/tui/problems"
	"oj/tui/shared"
	"oj/tui/styles"
	"oj/tui/submissions"
	"oj/tui/webhooks"
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
		submissions.New(ctx), problems.New(ctx), workers.New(ctx), audit.New(ctx), webhooks.New(ctx)}
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
			m.setFlash(m.confirm.action.Title+": dry run failed: "+actionError(msg.err), true)
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
			m.setFlash(title+"failed: "+actionError(msg.err), true)
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
