// Package styles is the one place where the dashboard's lipgloss styles are defined. Every
// style is built from one renderer, so tests (and NO_COLOR) get plain text by giving a
// renderer without colour.
package styles

import (
	"io"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/table"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Styles are the dashboard's styles.
type Styles struct {
	Renderer *lipgloss.Renderer

	Title    lipgloss.Style // the header's product name
	Header   lipgloss.Style // the header line
	Tab      lipgloss.Style // a view name in the tab line
	TabOn    lipgloss.Style // the current view's name
	Live     lipgloss.Style
	Stale    lipgloss.Style
	Paused   lipgloss.Style
	ReadOnly lipgloss.Style
	Section  lipgloss.Style // a section heading inside a view
	Label    lipgloss.Style
	Muted    lipgloss.Style
	Error    lipgloss.Style
	OK       lipgloss.Style
	Mark     lipgloss.Style
	Dialog   lipgloss.Style
	Spark    lipgloss.Style
	Flash    lipgloss.Style
	Table    table.Styles
	Help     help.Styles
}

// Default returns the styles for out (the program's stdout): no colour when noColor is
// set (the caller read --no-color and NO_COLOR) or out is not a terminal.
func Default(out io.Writer, noColor bool) Styles {
	r := lipgloss.NewRenderer(out)
	if noColor {
		r.SetColorProfile(termenv.Ascii)
	}
	return New(r)
}

// Plain returns styles without any colour or attribute: what the golden tests use.
func Plain() Styles {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	return New(r)
}

// New builds the styles on r.
func New(r *lipgloss.Renderer) Styles {
	accent := lipgloss.AdaptiveColor{Light: "25", Dark: "75"}
	muted := lipgloss.AdaptiveColor{Light: "245", Dark: "243"}
	red := lipgloss.AdaptiveColor{Light: "160", Dark: "203"}
	green := lipgloss.AdaptiveColor{Light: "28", Dark: "78"}
	yellow := lipgloss.AdaptiveColor{Light: "136", Dark: "221"}
	s := Styles{
		Renderer: r,
		Title:    r.NewStyle().Bold(true).Foreground(accent),
		Header:   r.NewStyle(),
		Tab:      r.NewStyle().Foreground(muted),
		TabOn:    r.NewStyle().Bold(true).Foreground(accent).Underline(true),
		Live:     r.NewStyle().Foreground(green),
		Stale:    r.NewStyle().Bold(true).Foreground(red),
		Paused:   r.NewStyle().Bold(true).Foreground(yellow),
		ReadOnly: r.NewStyle().Bold(true).Foreground(yellow),
		Section:  r.NewStyle().Bold(true).Foreground(accent),
		Label:    r.NewStyle().Foreground(muted),
		Muted:    r.NewStyle().Foreground(muted),
		Error:    r.NewStyle().Foreground(red),
		OK:       r.NewStyle().Foreground(green),
		Mark:     r.NewStyle().Bold(true).Foreground(yellow),
		Dialog:   r.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(yellow).Padding(0, 1),
		Spark:    r.NewStyle().Foreground(accent),
		Flash:    r.NewStyle().Foreground(yellow),
	}
	s.Table = table.Styles{
		Header:   r.NewStyle().Bold(true).Padding(0, 1).BorderStyle(lipgloss.NormalBorder()).BorderBottom(true).BorderForeground(muted),
		Cell:     r.NewStyle().Padding(0, 1),
		Selected: r.NewStyle().Bold(true).Reverse(true),
	}
	s.Help = help.Styles{
		Ellipsis:       r.NewStyle().Foreground(muted),
		ShortKey:       r.NewStyle().Bold(true),
		ShortDesc:      r.NewStyle().Foreground(muted),
		ShortSeparator: r.NewStyle().Foreground(muted),
		FullKey:        r.NewStyle().Bold(true),
		FullDesc:       r.NewStyle().Foreground(muted),
		FullSeparator:  r.NewStyle().Foreground(muted),
	}
	return s
}
