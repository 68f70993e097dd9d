package cgroup

import (
	"errors"
	"testing"
	"time"
)

// TestSettleWaitsForTheChargeToDrain: on v2 reset in place, memory still charged after a
// run is waited for; tmpfs (shmem) that stays is ErrNotDrained, page cache the next run
// can reclaim is not, and is not even reclaimed.
func TestSettleWaitsForTheChargeToDrain(t *testing.T) {
	defer func(d time.Duration) { DrainWait = d }(DrainWait)
	DrainWait = 20 * time.Millisecond
	f, g, slot := fakeSlot(t, "reset")
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
		f.set(slot, "memory.reclaim", "") // what Reset dropped (TestResetDropsInheritedCacheOverAQuarter)
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

// TestResetDropsInheritedCacheOverAQuarter: page cache earlier runs left stays for the
// next run unless it is over a quarter of that run's limit, whose peak would then leave
// out too much of what the kernel may take back from it.
func TestResetDropsInheritedCacheOverAQuarter(t *testing.T) {
	f, g, slot := fakeSlot(t, "reset")
	for _, c := range []struct {
		name    string
		current string
		limit   int64
		drop    bool
	}{
		{"nothing left", "0", 64 * MiB, false},
		{"8 MiB under 64", "8388608", 64 * MiB, false},
		{"16 MiB under 64", "16777216", 64 * MiB, false},
		{"24 MiB under 64", "25165824", 64 * MiB, true},
		{"24 MiB under 256", "25165824", 256 * MiB, false},
		{"2 MiB under 4", "2097152", 4 * MiB, true},
	} {
		f.set(slot, "memory.current", c.current+"\n")
		f.set(slot, "memory.reclaim", "")
		if err := g.Reset(Limits{Memory: c.limit, Pids: 16}); err != nil {
			t.Fatal(err)
		}
		if dropped := f.get(slot, "memory.reclaim") != ""; dropped != c.drop {
			t.Errorf("%s: reclaim asked for = %v, want %v", c.name, dropped, c.drop)
		}
	}
}
