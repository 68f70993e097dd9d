package cgroup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestProbeDecidesResetOrLeaf(t *testing.T) {
	for _, c := range []struct {
		peak       string
		perRun     bool
		whyContain string
	}{
		{"reset", false, ""},
		{"readonly", true, "read-only"},
		{"none", true, "no memory.peak"},
		{"ignored", true, "after a reset"},
	} {
		t.Run(c.peak, func(t *testing.T) {
			f, parent := newFakeFS(t, c.peak)
			if c.peak != "none" {
				// The pool cgroup has seen more than it holds now.
				f.set(parent, "memory.peak", "536870912\n")
				f.set(parent, "memory.current", "4096\n")
			}
			m := fakeManager(f, parent)
			if m.PerRunLeaf() != c.perRun || !strings.Contains(m.perRunWhy, c.whyContain) {
				t.Fatalf("per-run leaf %v (%q), want %v (%q)", m.PerRunLeaf(), m.perRunWhy, c.perRun, c.whyContain)
			}
			if c.perRun && !strings.Contains(m.Mode(), "leaf") || !c.perRun && !strings.Contains(m.Mode(), "resettable") {
				t.Errorf("mode %q", m.Mode())
			}
		})
	}
}

func TestResetInPlaceReportsDeltas(t *testing.T) {
	f, g, slot := fakeSlot(t, "reset")
	lim := Limits{Memory: 256 * MiB, Pids: 16}
	// Run 1: 1 s of CPU, 100 MiB, one OOM kill after 3 limit hits.
	if err := g.Reset(lim); err != nil {
		t.Fatal(err)
	}
	if f.get(slot, "memory.max") != "268435456" || f.get(slot, "memory.swap.max") != "0" || f.get(slot, "pids.max") != "16" {
		t.Fatalf("limits not applied: %s %s %s", f.get(slot, "memory.max"), f.get(slot, "memory.swap.max"), f.get(slot, "pids.max"))
	}
	simulateRun(t, f, slot, 1_000_000, 100*MiB, "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
	st, err := g.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.CPU != time.Second || st.MemoryPeak != 100*MiB || st.OOMKills != 1 || st.LimitHits != 3 {
		t.Fatalf("run 1: %+v", st)
	}
	if err := g.Settle(); err != nil {
		t.Fatal(err)
	}
	// Run 2: 250 ms more CPU, a 10 MiB peak; the kernel's counters are cumulative.
	if err := g.Reset(lim); err != nil {
		t.Fatal(err)
	}
	if f.get(slot, "memory.peak") != "0" {
		t.Fatalf("memory.peak not restarted: %s", f.get(slot, "memory.peak"))
	}
	simulateRun(t, f, slot, 1_250_000, 10*MiB, "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
	if st, err = g.Stats(); err != nil {
		t.Fatal(err)
	}
	if st.CPU != 250*time.Millisecond || st.MemoryPeak != 10*MiB || st.OOMKills != 0 || st.LimitHits != 0 || st.NoPeak {
		t.Fatalf("run 2 must be its own: %+v", st)
	}
	if err := g.Settle(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(slot, leafName)); err == nil {
		t.Fatal("a leaf was created in reset mode")
	}
	destroyTwice(t, g, slot)
}

// TestResetFailsLoudly: in reset mode a refused peak reset is an error (the slot is
// rebuilt), never a silently cumulative peak.
func TestResetFailsLoudly(t *testing.T) {
	f, g, _ := fakeSlot(t, "reset")
	f.peak = "readonly" // as if memory.peak stopped accepting writes
	if err := g.Reset(Limits{Memory: 64 * MiB}); err == nil {
		t.Fatal("Reset ignored a failed memory.peak reset")
	}
}
