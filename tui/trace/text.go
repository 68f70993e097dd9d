package trace

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"oj/tui/shared"
)

// hang is prefix followed by s wrapped to fit width, its continuation lines indented
// under s's first line.
func hang(prefix, s string, width int) string {
	pw := ansi.StringWidth(prefix)
	lines := shared.Wrap(s, width-pw)
	indent := strings.Repeat(" ", pw)
	for i := 1; i < len(lines); i++ {
		lines[i] = indent + lines[i]
	}
	return prefix + strings.Join(lines, "\n")
}

// block is s wrapped at width-2 and indented by two columns, at most maxLines lines; the
// rest is counted in a last line.
func block(s string, width, maxLines int, more func(n int) string) string {
	lines := shared.Wrap(s, width-2)
	extra := 0
	if len(lines) > maxLines {
		lines, extra = lines[:maxLines], len(lines)-maxLines
	}
	for i, l := range lines {
		lines[i] = "  " + l
	}
	if extra > 0 {
		lines = append(lines, "  "+more(extra))
	}
	return strings.Join(lines, "\n")
}

// kb formats kibibytes: 3400 KiB, 12.5 MiB.
func kb(v int) string {
	if v >= 10*1024 {
		return fmt.Sprintf("%.1f MiB", float64(v)/1024)
	}
	return fmt.Sprintf("%d KiB", v)
}
