package shared

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// Safe makes text that came from contestants, problem setters or workers (solution
// output, compiler and checker messages, errors) safe to draw on an operator's terminal:
// control characters are shown as \xNN, so an escape sequence cannot move the cursor,
// change colours, retitle the terminal or repaint the dashboard; a tab becomes four
// spaces, CRLF a newline, and invalid UTF-8 U+FFFD. Newlines stay.
func Safe(s string) string {
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\r\n", "\n"), "\uFFFD")
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteRune(r)
		case r == '\t':
			b.WriteString("    ")
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Wrap makes s safe (Safe) and breaks it into lines of at most width columns (8 at the
// least), at spaces where it can and inside words longer than a line; s's own line
// breaks are kept. It returns at least one line.
func Wrap(s string, width int) []string {
	s = strings.TrimRight(Safe(s), "\n")
	lines := strings.Split(ansi.Wrap(s, max(width, 8), " "), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}
