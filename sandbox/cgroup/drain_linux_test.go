package cgroup

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// TestSettleWaitsForTheChargeToDrain: on v2 reset in place, memory still charged after a
// run is waited for; tmpfs (shmem) that stays is ErrNotDrained, page cache the next run
// can reclaim is not.
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
		if c.current != "0" && f.get(slot, "memory.reclaim") == "" {
			t.Errorf("%s: no reclaim asked for", c.name)
		}
		f.set(slot, "memory.reclaim", "")
	}
}
