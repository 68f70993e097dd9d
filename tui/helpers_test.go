package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"oj/tui/shared"
)

func askReplay(h *harness) tea.Msg {
	return shared.AskMsg{Action: shared.Action{Title: "replay everything",
		DryRun: func(context.Context) (int, string, error) { return 0, "", nil },
		Do:     func(context.Context) (string, error) { return "", nil }}}
}
