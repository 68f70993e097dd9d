package shared

import "testing"

// What a hostile solution, checker or error puts in text never reaches the terminal as
// an escape sequence: not in a wrapped field (Safe) and not in a table cell (OneLine,
// which used to pass escape sequences through as zero-width).
func TestTextIsSafeToDraw(t *testing.T) {
	for _, c := range []struct{ in, safe, oneLine string }{
		{"plain", "plain", "plain"},
		{"a\x1b[2Jb", `a\x1b[2Jb`, `a\x1b[2Jb`},
		{"title\x1b]0;owned\x07", `title\x1b]0;owned\x07`, `title\x1b]0;owned\x07`},
		{"x\r\ny\tz", "x\ny    z", "x y z"},
		{"bad \xff utf8", "bad \uFFFD utf8", "bad \uFFFD utf8"},
		{"line\u2028sep\x00", `line\x2028sep\x00`, `line\x2028sep\x00`},
	} {
		if got := Safe(c.in); got != c.safe {
			t.Errorf("Safe(%q) = %q, want %q", c.in, got, c.safe)
		}
		if got := OneLine(c.in, 100); got != c.oneLine {
			t.Errorf("OneLine(%q) = %q, want %q", c.in, got, c.oneLine)
		}
	}
}
