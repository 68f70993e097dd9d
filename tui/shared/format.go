package shared

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// MS formats a duration given in milliseconds compactly: 850ms, 12s, 3m04s, 2h05m, 3d4h.
func MS(ms int64) string { return Dur(time.Duration(ms) * time.Millisecond) }

// Dur formats d compactly.
func Dur(d time.Duration) string {
	switch {
	case d < 0:
		return "-"
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < time.Minute:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int64(d/time.Minute), int64(d%time.Minute/time.Second))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int64(d/time.Hour), int64(d%time.Hour/time.Minute))
	default:
		return fmt.Sprintf("%dd%dh", int64(d/(24*time.Hour)), int64(d%(24*time.Hour)/time.Hour))
	}
}

// Ago is how long before now t was ("-" for a zero time).
func Ago(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t).Truncate(time.Second)
	if d == 0 {
		return "0s"
	}
	return Dur(d)
}

// Num formats n with thousands separators.
func Num(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Short cuts an id to n characters (UUIDs are long; their prefix is what people read).
func Short(id string, n int) string {
	if len(id) <= n {
		return id
	}
	return id[:n]
}

// Fit pads or cuts every line of s to exactly width columns and the whole to height lines.
func Fit(s string, width, height int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > height {
		lines = lines[:height]
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	for i, l := range lines {
		w := ansi.StringWidth(l)
		switch {
		case w > width:
			lines[i] = ansi.Truncate(l, width, "…")
		case w < width:
			lines[i] = l + strings.Repeat(" ", width-w)
		}
	}
	return strings.Join(lines, "\n")
}

// OneLine puts s on one line (newlines and tabs become spaces) cut at n columns; its
// control characters are shown as Safe shows them.
func OneLine(s string, n int) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s)
	s = Safe(s)
	return ansi.Truncate(s, n, "…")
}

// Middle cuts s to n columns by dropping its middle: ids keep the head and the tail.
func Middle(s string, n int) string {
	if len(s) <= n || n < 5 {
		return s
	}
	tail := (n - 1) / 3
	return s[:n-1-tail] + "…" + s[len(s)-tail:]
}
