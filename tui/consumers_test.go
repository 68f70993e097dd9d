package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// On a Redis before 7.2 XINFO CONSUMERS has no "inactive": the view says "—", never a
// "0ms" that would make a dead consumer look busy; idle (which every Redis reports) is
// shown. On 7.2 a consumer that never got an entry is "never".
func TestConsumersInactiveUnknownOrNever(t *testing.T) {
	h := newHarness(t, 80, 24, false, &fake{redis70: true})
	h.warm()
	h.keys(":", "consumers", "enter")
	h.golden("consumers_redis70_80x24")
	view := ansi.Strip(h.m.View())
	rows := 0
	for _, l := range strings.Split(view, "\n") {
		if f := strings.Fields(l); len(f) == 5 && strings.HasPrefix(f[1], "worker-") {
			rows++
			if f[4] != "—" || f[3] == "" || f[3] == "—" {
				t.Fatalf("consumer row %q: want its idle time and an unknown inactive time", l)
			}
		}
	}
	if rows != 4 {
		t.Fatalf("%d consumer rows, want 4:\n%s", rows, view)
	}

	h = newHarness(t, 80, 24, false, &fake{})
	h.warm()
	h.keys(":", "consumers", "enter")
	view = ansi.Strip(h.m.View())
	if !strings.Contains(view, "never") {
		t.Fatalf("a consumer that never got an entry is not \"never\":\n%s", view)
	}
}
