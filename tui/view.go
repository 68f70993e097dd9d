package tui

import (
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"oj/core/api/client"
	"oj/tui/keys"
	"oj/tui/shared"
)

// The dashboard's frame: header, tabs, the current view, the footer and the dialog.

// View renders the whole screen in exactly width×height.
func (m *Model) View() string {
	st := m.ctx.Styles
	body := m.Current().View()
	if m.showHelp {
		body = st.Section.Render("Keys") + "  " + st.Muted.Render("(any key closes)") + "\n\n" +
			m.help.FullHelpView(keys.Help{Map: m.ctx.Keys, Extra: m.Current().Keys()}.FullHelp())
	}
	// A flash is shown whole: a refused action's reason may take a few lines, which the
	// body gives up while it is shown.
	flash := shared.Wrap(m.flash, m.width)
	if len(flash) > maxFlashLines {
		flash = append(flash[:maxFlashLines-1], shared.OneLine(strings.Join(flash[maxFlashLines-1:], " "), m.width))
	}
	body = shared.Fit(body, m.width, m.bodyHeight()-(len(flash)-1))
	if m.confirm != nil {
		body = overlay(body, m.dialog(), m.width)
	}
	var status string
	switch {
	case m.jumping:
		status = m.jump.View()
	case m.flash != "" && m.flashErr:
		status = st.Error.Render(strings.Join(flash, "\n"))
	case m.flash != "":
		status = st.Flash.Render(strings.Join(flash, "\n"))
	default:
		if _, fix := refused(m.lastErr); fix != "" {
			status = st.Error.Render(fix)
		}
	}
	bar := m.help.ShortHelpView(keys.Help{Map: m.ctx.Keys, Extra: m.Current().Keys()}.ShortHelp())
	return shared.Fit(strings.Join([]string{m.header(), m.tabs(), body, status, bar}, "\n"), m.width, m.height)
}

func (m *Model) header() string {
	st := m.ctx.Styles
	now := m.ctx.Now()
	var state string
	what, _ := refused(m.lastErr)
	switch {
	case what != "" && m.lastOK.IsZero():
		state = st.Stale.Render("REFUSED: ") + st.Error.Render(what)
	case what != "":
		state = st.Stale.Render(fmt.Sprintf("STALE %s: REFUSED: ", shared.Ago(now, m.lastOK))) + st.Error.Render(what)
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

// refused explains a token the server refuses: what is wrong (for the header) and how to
// fix it (for the status line), or "" for other errors. The dashboard reads admin
// endpoints only, so a 403 means a user token.
func refused(err error) (what, fix string) {
	var ce *client.Error
	if !errors.As(err, &ce) {
		return "", ""
	}
	switch ce.Status {
	case 403:
		return "this token is not an admin token",
			"the dashboard needs an admin token — ojd token create --name NAME --role admin"
	case 401:
		return "the token is missing or invalid",
			"pass an admin token: --token or OJCTL_TOKEN (ojd token create --role admin)"
	}
	return "", ""
}

// shortErr is the reason without the client's method and URL prefix (the header shows
// the server already).
// maxFlashLines bounds the status area a flash may take.
const maxFlashLines = 4

// actionError is why an action failed, for its flash: the server's answer (status and
// message) without the method and URL the operator knows already, so the reason fits.
func actionError(err error) string {
	var ce *client.Error
	if errors.As(err, &ce) && ce.Status != 0 {
		return fmt.Sprintf("%d %s", ce.Status, ce.Message)
	}
	return err.Error()
}

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
