// Package shared is the context every view of the dashboard shares: the data source (the
// API client), the read-only flag, the screen size, the clock, the styles and key map, the
// latest snapshot of the server's state, and the messages views send to the root model.
package shared

import (
	"context"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"oj/core/wire"
	"oj/tui/keys"
	"oj/tui/styles"
)

// Source is what the dashboard needs of the HTTP API. *client.Client satisfies it; tests
// use a fake.
type Source interface {
	Overview(ctx context.Context) (*wire.Overview, error)
	PEL(ctx context.Context, lane string, minIdle time.Duration, limit int) ([]wire.PendingEntry, error)
	Reclaim(ctx context.Context, req wire.ReclaimRequest) (*wire.ReclaimResult, error)
	Outbox(ctx context.Context, limit int) (*wire.Outbox, error)
	DLQ(ctx context.Context, limit int, cursor string) (*wire.DLQ, error)
	Submissions(ctx context.Context, q wire.ListSubmissionsQuery) (*wire.SubmissionList, error)
	ReplayDLQ(ctx context.Context, req wire.ReplayRequest) (*wire.ReplayResult, error)
	Trim(ctx context.Context, req wire.TrimRequest) (*wire.TrimResult, error)
	RejudgeSubmission(ctx context.Context, id string, dryRun bool) (*wire.RejudgeResult, error)
	Cancel(ctx context.Context, id string, dryRun bool) (*wire.CancelResult, error)
	Workers(ctx context.Context) (*wire.Workers, error)
	SetWorkerState(ctx context.Context, name, action, reason string, dryRun bool) (*wire.WorkerActionResult, error)
	Audit(ctx context.Context, limit int) ([]wire.AuditEntry, error)
	Trace(ctx context.Context, id string) (*wire.Trace, error)
	Case(ctx context.Context, id string, n int) (*wire.CaseDetail, error)
	Webhooks(ctx context.Context) (*wire.WebhookList, error)
	Problems(ctx context.Context, archived string) (*wire.ProblemList, error)
	VerifyProblem(ctx context.Context, id string, dryRun bool) (*wire.VerifyStarted, error)
	Verification(ctx context.Context, id string) (*wire.Verification, error)
	Problem(ctx context.Context, id string) (*wire.Problem, error)
	RemoveProblem(ctx context.Context, id string, dryRun bool) (*wire.ProblemRemoved, error)
}

// Context is handed to every view: nothing here is global.
type Context struct {
	Source   Source
	Server   string
	ReadOnly bool
	Now      func() time.Time
	Styles   styles.Styles
	Keys     keys.Map
	// CallTimeout bounds each API call.
	CallTimeout time.Duration
}

// Snapshot is one refresh: every list the views show, fetched together.
type Snapshot struct {
	At       time.Time // when the refresh finished
	Overview *wire.Overview
	PEL      []wire.PendingEntry
	Outbox   *wire.Outbox
	DLQ      *wire.DLQ
	// Submissions are the most recent submissions, newest first.
	Submissions *wire.SubmissionList
	Workers     *wire.Workers
	Audit       []wire.AuditEntry
	Webhooks    *wire.WebhookList
	// Problems are every problem, archived ones too, by id.
	Problems *wire.ProblemList
}

// View is one screen of the dashboard.
type View interface {
	// Name is the view's name for ":" and the tab line.
	Name() string
	// SetSnapshot gives the view a new snapshot (never nil).
	SetSnapshot(s *Snapshot)
	// SetSize is the space the view may use.
	SetSize(width, height int)
	// Update handles a message the root did not consume.
	Update(msg tea.Msg) (View, tea.Cmd)
	// View renders the view in exactly the size given.
	View() string
	// Capturing reports that the view takes every key (its filter input is open).
	Capturing() bool
	// Back handles esc: it reports false when there was nothing to close.
	Back() bool
	// Keys are the view's extra bindings for the help (actions are left out in read-only).
	Keys() []key.Binding
}

// Action is a change an operator asked for: the root runs DryRun, asks y/N showing its
// count, then runs Do and shows what happened. Views send it with Ask.
type Action struct {
	// Title says what will be done, e.g. "replay 3 marked dead letters".
	Title string
	// DryRun returns the count of what would change and a short description.
	DryRun func(ctx context.Context) (int, string, error)
	// Do does it and returns what happened.
	Do func(ctx context.Context) (string, error)
}

// AskMsg carries an Action to the root.
type AskMsg struct{ Action Action }

// Ask returns a command that sends a to the root.
func Ask(a Action) tea.Cmd { return func() tea.Msg { return AskMsg{Action: a} } }

// AskCall asks for the Action of one API call, made as a dry run and then for real: would
// reads the dry run's count and description from its answer, done says what the real
// call did.
func AskCall[R any](title string, call func(ctx context.Context, dryRun bool) (R, error),
	would func(R) (int, string), done func(R) string) tea.Cmd {
	return Ask(Action{
		Title: title,
		DryRun: func(ctx context.Context) (int, string, error) {
			r, err := call(ctx, true)
			if err != nil {
				return 0, "", err
			}
			n, what := would(r)
			return n, what, nil
		},
		Do: func(ctx context.Context) (string, error) {
			r, err := call(ctx, false)
			if err != nil {
				return "", err
			}
			return done(r), nil
		},
	})
}

// TraceMsg is the answer of a trace fetch started by a view.
type TraceMsg struct {
	ID    string
	Trace *wire.Trace
	Err   error
}

// FetchTrace returns a command that fetches id's trace.
func (c *Context) FetchTrace(id string) tea.Cmd {
	src, timeout := c.Source, c.CallTimeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		t, err := src.Trace(ctx, id)
		return TraceMsg{ID: id, Trace: t, Err: err}
	}
}

// ActionKeys filters out bindings when read-only.
func (c *Context) ActionKeys(b ...key.Binding) []key.Binding {
	if c.ReadOnly {
		return nil
	}
	return b
}
