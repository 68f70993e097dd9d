package cgroup

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// TestSettleWaitsForTheChargeToDrain: on v2 reset in place, memory still charged after a
// run is waited for; tmpfs (shmem) that stays is ErrNotDrained, page cache the next run
// can reclaim is not, and is not even reclaimed.
func TestSettleWaitsForTheChargeToDrain(t *testing.T) {
	defer func(d time.Duration) { DrainWait = d }(DrainWait)
	DrainWait = 20 * time.Millisecond
	f, parent := newFakeFS(t, "reset")
	m := fakeManager(f, parent)
	g, err := m.Create("slot-0")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Destroy()
	slot := filepath.Join(parent, "slot-0")
	lim := Limits{Memory: 256 * MiB, Pids: 16}
	for _, c := range []struct {
		name, current, stat string
		want                error
	}{
		{"drained", "0", "", nil},
		{"tmpfs left", "104857600", "anon 0\nfile 104857600\nshmem 104857600\n", ErrNotDrained},
		{"page cache left", "104857600", "anon 0\nfile 104857600\nshmem 0\n", nil},
		{"anon and kernel left", "104857600", "anon 52428800\nfile 0\nshmem 0\n", ErrNotDrained},
	} {
		if err := g.Reset(lim); err != nil {
			t.Fatal(err)
		}
		simulateRun(t, f, slot, 1000, MiB, "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n")
		f.set(slot, "memory.current", c.current+"\n")
		f.set(slot, "memory.stat", c.stat)
		if err := g.Settle(); !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("%s: Settle = %v, want %v", c.name, err, c.want)
		}
		// Clean page cache is kept (dropping it would make the next run read the same
		// files from the disk again); anything else is reclaimed.
		wantReclaim := c.current != "0" && c.name != "page cache left"
		if asked := f.get(slot, "memory.reclaim") != ""; asked != wantReclaim {
			t.Errorf("%s: reclaim asked for = %v, want %v", c.name, asked, wantReclaim)
		}
		f.set(slot, "memory.reclaim", "")
	}
}

// TestPeakLeavesInheritedCacheOut: what earlier runs left charged is left out of a run's
// peak, and a run that reached its limit over it is flagged PeakShort (the kernel took
// some of that cache back, so the subtraction may have taken too much).
func TestPeakLeavesInheritedCacheOut(t *testing.T) {
	for _, c := range []struct {
		name       string
		base       baseline
		peak, want int64
		short      bool
	}{
		{"nothing left", baseline{usage: 0, limit: 64 * MiB}, 10 * MiB, 10 * MiB, false},
		{"a kernel batch left", baseline{usage: 256 << 10, limit: 64 * MiB}, 10 * MiB, 10 * MiB, false},
		{"cache left, small run", baseline{usage: 24 * MiB, limit: 64 * MiB}, 30 * MiB, 6 * MiB, false},
		{"cache left, run at the limit", baseline{usage: 24 * MiB, limit: 64 * MiB}, 64 * MiB, 40 * MiB, true},
		{"cache left, no limit", baseline{usage: 24 * MiB}, 64 * MiB, 40 * MiB, false},
	} {
		got := c.base.since(Stats{MemoryPeak: c.peak})
		if got.MemoryPeak != c.want || got.PeakShort != c.short {
			t.Errorf("%s: peak %d short %v, want %d %v", c.name, got.MemoryPeak, got.PeakShort, c.want, c.short)
		}
	}
}
