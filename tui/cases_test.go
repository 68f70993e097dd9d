package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The Submissions view's detail pane shows a dead submission's error whole, a judged
// one's cases, and from there a case's output; esc goes back to the trace, then the list.
func TestSubmissionDetailShowsTheErrorTheCasesAndACasesOutput(t *testing.T) {
	for _, s := range sizes {
		t.Run(size(s.w, s.h), func(t *testing.T) {
			h := newHarness(t, s.w, s.h, false, &fake{})
			h.warm()
			h.keys(":", "sub", "enter", "/", deadID, "enter", "enter")
			view := ansi.Strip(h.m.View())
			for _, part := range []string{"trace " + deadID, "attempt 3: fetch problem package", "endpoint minio:9000);", "push the problem again,", "replay"} {
				if !strings.Contains(view, part) {
					t.Fatalf("the dead submission's error is not shown whole (no %q):\n%s", part, view)
				}
			}
			h.golden("detail_dead_error_" + size(s.w, s.h))

			h.keys("esc", "esc", "/", judgedID, "enter", "enter")
			view = ansi.Strip(h.m.View())
			if !strings.Contains(view, "▶    3") || !strings.Contains(view, "knows a path of length 9") {
				t.Fatalf("the cases table lacks the first failed case selected, or its whole message:\n%s", view)
			}
			h.golden("detail_cases_" + size(s.w, s.h))

			h.keys("]", "]", "[", "o")
			if count(h.f.calls, "case") != 1 {
				t.Fatalf("calls %v, want one case fetch", h.f.calls)
			}
			view = ansi.Strip(h.m.View())
			if !strings.Contains(view, "case 3 of "+judgedID) || strings.Contains(view, "\x1b[2J") {
				t.Fatalf("not case 3's output (selected with ] ] [), or a control sequence reached the screen:\n%s", view)
			}
			h.golden("detail_case_output_" + size(s.w, s.h))

			h.keys("esc")
			view = ansi.Strip(h.m.View())
			if !strings.Contains(view, "trace "+judgedID) || !strings.Contains(view, "▶    3") {
				t.Fatalf("esc did not go back to the trace with case 3 selected:\n%s", view)
			}
			h.keys("esc")
			if view = ansi.Strip(h.m.View()); strings.Contains(view, "trace "+judgedID) {
				t.Fatalf("the second esc did not close the trace:\n%s", view)
			}
		})
	}
}
