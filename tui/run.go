// Package tui is ojctl's dashboard: a Bubble Tea program over oj's HTTP admin API with the
// views Overview, PEL, Consumers, Outbox, DLQ, Submissions, Problems, Workers and Audit (one package
// each), k9s-style keys, actions behind a y/N confirmation that shows the dry-run count,
// and a refresh loop that keeps the last data on screen, marked stale, while the server
// cannot be reached. It knows the server only through core/api/client and core/wire.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"oj/core/api/client"
	"oj/tui/styles"
)

// Options configure the dashboard.
type Options struct {
	// Client talks to the server (an admin token is needed for the admin endpoints).
	Client *client.Client
	// Server is the server's URL, shown in the header.
	Server string
	// Refresh is the refresh interval: 0 means 2 s; never faster than 1 s.
	Refresh time.Duration
	// ReadOnly hides and refuses every action.
	ReadOnly bool
	// In and Out are the terminal (ojctl's stdin and stdout); nil: os.Stdin, os.Stdout.
	In  io.Reader
	Out io.Writer
	// NoColor turns colour off (ojctl's --no-color or NO_COLOR): the dashboard reads no
	// environment itself.
	NoColor bool
}

// Run runs the dashboard on the terminal until the operator quits or ctx ends.
func Run(ctx context.Context, o Options) error {
	if o.Client == nil {
		return errors.New("dashboard: no API client")
	}
	server := o.Server
	if server == "" {
		server = o.Client.BaseURL
	}
	in, out := o.In, o.Out
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stdout
	}
	m := New(Config{Source: o.Client, Server: server, Refresh: o.Refresh, ReadOnly: o.ReadOnly,
		Styles: styles.Default(out, o.NoColor)})
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out))
	if _, err := p.Run(); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("dashboard: %w", err)
	}
	return nil
}
