package tui

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"oj/core/api/client"
	"oj/tui/styles"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// harness drives a root model the way Bubble Tea does, with a fake clock and server.
type harness struct {
	t   *testing.T
	m   *Model
	f   *fake
	now time.Time
}

func newHarness(t *testing.T, w, h int, readOnly bool, f *fake) *harness {
	t.Helper()
	hs := &harness{t: t, f: f, now: t0}
	f.now = func() time.Time { return hs.now }
	if f.finished == 0 {
		f.finished = 1000
	}
	hs.m = New(Config{Source: f, Server: "http://127.0.0.1:8080", ReadOnly: readOnly, Styles: styles.Plain(),
		Now: func() time.Time { return hs.now }})
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	return hs
}

// send delivers msg to Update and runs the commands it returns, feeding their messages
// back. Commands that do not answer quickly (ticks, cursor blinks) are dropped.
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	queue := []tea.Msg{msg}
	for len(queue) > 0 {
		msg, queue = queue[0], queue[1:]
		if _, ok := msg.(tickMsg); ok {
			continue
		}
		_, cmd := h.m.Update(msg)
		queue = append(queue, run(cmd)...)
	}
}

func run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	select {
	case msg := <-ch:
		if b, ok := msg.(tea.BatchMsg); ok {
			var out []tea.Msg
			for _, c := range b {
				out = append(out, run(c)...)
			}
			return out
		}
		if msg == nil {
			return nil
		}
		return []tea.Msg{msg}
	case <-time.After(300 * time.Millisecond):
		return nil
	}
}

// refresh advances the clock by d and runs one refresh.
func (h *harness) refresh(d time.Duration) {
	h.now = h.now.Add(d)
	h.send(dataMsgOf(h.m))
}

func dataMsgOf(m *Model) tea.Msg { return m.fetch()() }

func (h *harness) keys(ks ...string) {
	for _, k := range ks {
		switch k {
		case "enter":
			h.send(tea.KeyMsg{Type: tea.KeyEnter})
		case "esc":
			h.send(tea.KeyMsg{Type: tea.KeyEsc})
		case "tab":
			h.send(tea.KeyMsg{Type: tea.KeyTab})
		case "space":
			h.send(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
		case "down":
			h.send(tea.KeyMsg{Type: tea.KeyDown})
		default:
			for _, r := range k {
				h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
			}
		}
	}
}

// warm runs a few refreshes with changing numbers, so sparklines and rates have data.
func (h *harness) warm() {
	for i := range 6 {
		h.f.finished += int64(10 * i)
		h.f.pending = int64(10 + i*i*2)
		h.refresh(2 * time.Second)
	}
}

func (h *harness) golden(name string) {
	h.t.Helper()
	got := ansi.Strip(h.m.View())
	lines := strings.Split(got, "\n")
	if len(lines) != h.m.height {
		h.t.Errorf("%s: %d lines, want %d", name, len(lines), h.m.height)
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w != h.m.width {
			h.t.Errorf("%s: line %d is %d wide, want %d: %q", name, i+1, w, h.m.width, l)
		}
	}
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			h.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			h.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatalf("%v (run go test ./tui -update to create it)", err)
	}
	if string(want) != got {
		h.t.Errorf("%s: View() differs from %s (go test ./tui -update rewrites it)\n--- got:\n%s\n--- want:\n%s", name, path, got, want)
	}
}

var sizes = []struct{ w, h int }{{80, 24}, {160, 48}}

func size(w, h int) string { return itoa(w) + "x" + itoa(h) }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

var viewNames = []string{"overview", "pel", "consumers", "outbox", "dlq", "submissions", "problems", "workers", "audit", "webhooks"}

func TestEveryViewAtBothSizes(t *testing.T) {
	for _, s := range sizes {
		for _, v := range viewNames {
			t.Run(v+"_"+size(s.w, s.h), func(t *testing.T) {
				h := newHarness(t, s.w, s.h, false, &fake{})
				h.warm()
				h.keys(":", v, "enter")
				if got := h.m.Current().Name(); got != v {
					t.Fatalf("after :%s the view is %s", v, got)
				}
				h.golden(v + "_" + size(s.w, s.h))
			})
		}
	}
}

func TestEmptyViews(t *testing.T) {
	for _, s := range sizes {
		for _, v := range viewNames {
			t.Run(v+"_"+size(s.w, s.h), func(t *testing.T) {
				h := newHarness(t, s.w, s.h, false, &fake{empty: true})
				h.refresh(time.Second)
				h.keys(":", v, "enter")
				h.golden("empty_" + v + "_" + size(s.w, s.h))
			})
		}
	}
}

func TestStaleKeepsTheLastDataAndRecovers(t *testing.T) {
	for _, s := range sizes {
		t.Run(size(s.w, s.h), func(t *testing.T) {
			h := newHarness(t, s.w, s.h, false, &fake{})
			h.warm()
			h.f.down = errors.New("GET http://127.0.0.1:8080/admin/v1/overview: dial tcp 127.0.0.1:8080: connect: connection refused")
			h.refresh(2 * time.Second)
			h.refresh(15 * time.Second)
			view := ansi.Strip(h.m.View())
			if !strings.Contains(view, "STALE 17s") || !strings.Contains(view, "100,000") {
				t.Errorf("stale screen lacks the age or the last data:\n%s", view)
			}
			h.golden("stale_overview_" + size(s.w, s.h))
			h.keys(":", "dlq", "enter")
			h.golden("stale_dlq_" + size(s.w, s.h))
			h.f.down = nil
			h.refresh(2 * time.Second)
			if view := ansi.Strip(h.m.View()); !strings.Contains(view, "● live") {
				t.Errorf("no recovery after the server came back:\n%s", view)
			}
		})
	}
}

func TestOfflineFromTheStart(t *testing.T) {
	h := newHarness(t, 80, 24, false, &fake{down: errors.New("GET http://127.0.0.1:8080/admin/v1/overview: dial tcp 127.0.0.1:8080: connect: connection refused")})
	h.refresh(time.Second)
	h.golden("offline_80x24")
}

func TestReadOnlyHidesAndRefusesActions(t *testing.T) {
	for _, s := range sizes {
		t.Run(size(s.w, s.h), func(t *testing.T) {
			h := newHarness(t, s.w, s.h, true, &fake{})
			h.warm()
			h.keys(":", "dlq", "enter", "space", "e", "E")
			h.golden("readonly_dlq_" + size(s.w, s.h))
			h.keys(":", "pel", "enter", "c", "C", "t")
			h.keys(":", "sub", "enter", "J", "X")
			h.keys(":", "prob", "enter", "v", "D")
			for _, c := range h.f.calls {
				switch c {
				case "replay", "reclaim", "trim", "rejudge", "cancel", "verify", "remove":
					t.Fatalf("read-only dashboard called %s", c)
				}
			}
			if h.m.confirm != nil {
				t.Fatal("read-only dashboard opened a confirm dialog")
			}
			// Even an action that reaches the root is refused.
			h.send(askReplay(h))
			if !strings.Contains(ansi.Strip(h.m.View()), "read-only") {
				t.Error("the refusal is not shown")
			}
		})
	}
}

func TestConfirmDialogs(t *testing.T) {
	cases := []struct {
		name, view string
		keys       []string
		action     string
	}{
		{"replay_marked", "dlq", []string{"space", "space", "e"}, "replay"},
		{"replay_all", "dlq", []string{"E"}, "replay"},
		{"reclaim_selected", "pel", []string{"down", "c"}, "reclaim"},
		{"reclaim_all", "pel", []string{"C"}, "reclaim"},
		{"trim_lane", "overview", []string{"t"}, "trim"},
		{"rejudge", "submissions", []string{"J"}, "rejudge"},
		{"cancel", "submissions", []string{"X"}, "cancel"},
		{"verify_problem", "problems", []string{"v"}, "verify"},
		{"remove_problem", "problems", []string{"down", "D"}, "remove"},
		{"drain_worker", "workers", []string{"D"}, "worker_state"},
		{"enable_worker", "workers", []string{"down", "A"}, "worker_state"},
	}
	for _, c := range cases {
		for _, s := range sizes {
			t.Run(c.name+"_"+size(s.w, s.h), func(t *testing.T) {
				h := newHarness(t, s.w, s.h, false, &fake{})
				h.warm()
				h.keys(":", c.view, "enter")
				h.keys(c.keys...)
				if h.m.confirm == nil || !h.m.confirm.asking {
					t.Fatalf("no confirm dialog after %v", c.keys)
				}
				h.golden("confirm_" + c.name + "_" + size(s.w, s.h))
				if n := count(h.f.calls, c.action); n != 1 {
					t.Fatalf("%d %s calls before yes, want 1 (the dry run)", n, c.action)
				}
				h.keys("y")
				if n := count(h.f.calls, c.action); n != 2 {
					t.Fatalf("%d %s calls after yes, want 2", n, c.action)
				}
				if h.m.confirm != nil || h.m.flash == "" || h.m.flashErr {
					t.Fatalf("after yes: confirm %v, flash %q (error %v)", h.m.confirm, h.m.flash, h.m.flashErr)
				}
				if s.w == 80 {
					h.golden("done_" + c.name + "_" + size(s.w, s.h))
				}
			})
		}
	}
}

// An action the server refuses shows its whole reason, not the request's URL cut at the
// screen's edge.
func TestRefusedActionShowsTheWholeReason(t *testing.T) {
	reason := "submission 01a21841-5324-764b-b8be-44d36dc4f650 is already finished (verdict AC); only a queued or running submission can be canceled"
	h := newHarness(t, 80, 24, false, &fake{refuseCancel: &client.Error{Server: "http://127.0.0.1:8080", Method: "POST",
		Path: "/admin/v1/submissions/01a21841-5324-764b-b8be-44d36dc4f650/cancel", Status: 409, Code: "conflict", Message: reason}})
	h.warm()
	h.keys(":", "submissions", "enter", "X", "y")
	view := ansi.Strip(h.m.View())
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") } // wrapping may break at a hyphen
	if !strings.Contains(squeeze(view), squeeze("failed: 409 "+reason)) {
		t.Fatalf("the refusal's reason is not shown whole:\n%s", view)
	}
	if strings.Contains(view, "/cancel") {
		t.Fatalf("the flash shows the request's URL instead of the reason:\n%s", view)
	}
	if lines := strings.Count(view, "\n") + 1; lines != 24 {
		t.Fatalf("the screen is %d lines, want 24", lines)
	}
}

func TestConfirmNoDoesNothing(t *testing.T) {
	h := newHarness(t, 80, 24, false, &fake{})
	h.warm()
	h.keys(":", "dlq", "enter", "E", "n")
	if n := count(h.f.calls, "replay"); n != 1 {
		t.Fatalf("%d replay calls, want only the dry run", n)
	}
	if !strings.Contains(h.m.flash, "not done") {
		t.Fatalf("flash %q", h.m.flash)
	}
}

func TestDetailPanesAndTrace(t *testing.T) {
	for _, s := range sizes {
		t.Run(size(s.w, s.h), func(t *testing.T) {
			h := newHarness(t, s.w, s.h, false, &fake{})
			h.warm()
			h.keys(":", "dlq", "enter", "enter")
			h.golden("trace_dlq_" + size(s.w, s.h))
			h.keys("esc", ":", "sub", "enter", "enter")
			h.golden("trace_submissions_" + size(s.w, s.h))
			h.keys("esc", ":", "ov", "enter", "enter")
			h.golden("detail_overview_lane_" + size(s.w, s.h))
			h.keys("esc", ":", "out", "enter", "enter")
			h.golden("detail_outbox_" + size(s.w, s.h))
			h.keys("esc", ":", "prob", "enter", "enter")
			h.golden("detail_problem_" + size(s.w, s.h))
			h.keys("esc", ":", "workers", "enter", "down", "enter")
			h.golden("detail_worker_" + size(s.w, s.h))
		})
	}
}

func TestHelpJumpFilterPause(t *testing.T) {
	h := newHarness(t, 80, 24, false, &fake{})
	h.warm()
	h.keys("?")
	h.golden("help_80x24")
	h.keys("esc", ":", "wo")
	h.golden("jump_completion_80x24")
	h.send(tea.KeyMsg{Type: tea.KeyTab}) // accept the suggestion
	h.keys("enter")
	if got := h.m.Current().Name(); got != "workers" {
		t.Fatalf("view %s after :wo<tab><enter>", got)
	}
	h.keys(":", "pel", "enter", "/", "worker-2", "enter")
	h.golden("filter_pel_80x24")
	h.keys("p")
	h.refresh(2 * time.Second)
	h.golden("paused_pel_80x24")
	h.keys(":", "nosuch", "enter")
	if !strings.Contains(h.m.flash, "no view nosuch") {
		t.Fatalf("flash %q", h.m.flash)
	}
}

func TestResizeAndRefreshFloor(t *testing.T) {
	h := newHarness(t, 160, 48, false, &fake{})
	h.warm()
	h.keys(":", "dlq", "enter")
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.golden("dlq_resized_to_80x24")
	if m := New(Config{Source: &fake{}, Refresh: 100 * time.Millisecond}); m.interval != time.Second {
		t.Fatalf("refresh %v, want the 1 s floor", m.interval)
	}
	if m := New(Config{Source: &fake{}}); m.interval != 2*time.Second {
		t.Fatalf("refresh %v, want the 2 s default", m.interval)
	}
}

func count(calls []string, name string) int {
	n := 0
	for _, c := range calls {
		if c == name {
			n++
		}
	}
	return n
}

// The Submissions view lists what GET /admin/v1/submissions returns, newest first, and
// "/" filters what it shows (here: the dead ones).
func TestSubmissionsViewListsRecentSubmissionsAndFilters(t *testing.T) {
	h := newHarness(t, 80, 24, false, &fake{})
	h.warm()
	if count(h.f.calls, "submissions") == 0 {
		t.Fatal("a refresh did not ask for the recent submissions")
	}
	h.keys(":", "submissions", "enter")
	view := ansi.Strip(h.m.View())
	if !strings.Contains(view, "40 rows") || strings.Index(view, "0195a1b3…0040") > strings.Index(view, "0195a1b3…0039") {
		t.Fatalf("not the 40 submissions newest first:\n%s", view)
	}
	h.keys("/", "dead", "enter")
	view = ansi.Strip(h.m.View())
	if !strings.Contains(view, "0195a1b2…0002") || !strings.Contains(view, "0195a1b2…0001") || strings.Contains(view, "0195a1b3…0040") {
		t.Fatalf("filter dead:\n%s", view)
	}
}
