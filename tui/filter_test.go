package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// statusLine is the list's status line: the filter and its count, or the row count.
func statusLine(t *testing.T, h *harness) string {
	t.Helper()
	lines := strings.Split(ansi.Strip(h.m.View()), "\n")
	return strings.TrimSpace(lines[len(lines)-3])
}

// "/" starts a new filter: typing replaces the one applied before, whether "/" comes
// right after it or after leaving the view and coming back; esc clears it.
func TestFilterStartsFreshEachTime(t *testing.T) {
	h := newHarness(t, 80, 24, false, &fake{})
	h.warm()
	h.keys(":", "pel", "enter", "/", "worker-2", "enter")
	if got := statusLine(t, h); got != "/worker-2    15 of 30" {
		t.Fatalf("after /worker-2: status %q", got)
	}
	h.keys("/")
	if got := statusLine(t, h); got != "/    30 of 30" {
		t.Fatalf(`after "/" again: status %q, want an empty filter`, got)
	}
	h.keys("worker-1", "enter")
	if got := statusLine(t, h); got != "/worker-1    15 of 30" {
		t.Fatalf("after /worker-1: status %q, want worker-1 alone", got)
	}
	// Away and back: the filter still applies, and a new one replaces it.
	h.keys(":", "dlq", "enter", ":", "pel", "enter")
	if got := statusLine(t, h); got != "/worker-1    15 of 30" {
		t.Fatalf("back on pel: status %q", got)
	}
	h.keys("/", "1741953600000-7", "enter")
	if got := statusLine(t, h); got != "/1741953600000-7    1 of 30" {
		t.Fatalf("after a new filter: status %q", got)
	}
	h.keys("esc")
	if got := statusLine(t, h); got != "30 rows" {
		t.Fatalf("after esc: status %q", got)
	}
}
