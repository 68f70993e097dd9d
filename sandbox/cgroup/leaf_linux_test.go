package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestPerRunLeafSequence(t *testing.T) {
	for _, peak := range []string{"readonly", "none"} {
		t.Run(peak, func(t *testing.T) {
			f, parent := newFakeFS(t, peak)
			m := fakeManager(f, parent)
			if !m.PerRunLeaf() {
				t.Fatal("want a leaf per run")
			}
			g, err := m.Create("slot-0")
			if err != nil {
				t.Fatal(err)
			}
			slot := filepath.Join(parent, "slot-0")
			leaf := filepath.Join(slot, leafName)
			if got := f.get(slot, "cgroup.subtree_control"); got != "memory pids" {
				t.Fatalf("slot subtree_control %q, want memory pids", got)
			}
			if _, err := g.ProcsFiles(); !errors.Is(err, errNoRun) {
				t.Fatalf("ProcsFiles outside a run: %v", err)
			}
			lim := Limits{Memory: 256 * MiB, Pids: 16}
			f.set(slot, "memory.peak", "0\n")
			runs := []struct {
				cpuUsec, peak int64
				events        string
				want          Stats
			}{
				{1_000_000, 200 * MiB, "max 3\noom 1\noom_kill 1\n", Stats{CPU: time.Second, MemoryPeak: 200 * MiB, OOMKills: 1, LimitHits: 3}},
				{250_000, 10 * MiB, "max 0\noom 0\noom_kill 0\n", Stats{CPU: 250 * time.Millisecond, MemoryPeak: 10 * MiB}},
			}
			for i, r := range runs {
				if err := g.Reset(lim); err != nil {
					t.Fatalf("run %d: %v", i, err)
				}
				for name, want := range map[string]string{"memory.max": "268435456", "memory.swap.max": "0", "memory.oom.group": "1", "pids.max": "16"} {
					if got := f.get(leaf, name); got != want {
						t.Errorf("run %d: leaf %s = %q, want %q", i, name, got, want)
					}
				}
				if f.get(slot, "memory.max") != "max" {
					t.Errorf("the slot got a limit: %s", f.get(slot, "memory.max"))
				}
				procs, err := g.ProcsFiles()
				if err != nil || len(procs) != 1 || procs[0].Name() != filepath.Join(leaf, "cgroup.procs") {
					t.Fatalf("run %d: procs %v, %v", i, procs, err)
				}
				// No internal processes: the slot refuses one, the leaf takes it.
				if err := f.join(slot); !errors.Is(err, syscall.EBUSY) {
					t.Fatalf("a process could join the slot itself: %v", err)
				}
				simulateRun(t, f, leaf, r.cpuUsec, r.peak, r.events)
				// The slot's own peak only grows (its cumulative value is never read).
				f.set(slot, "memory.peak", fmt.Sprintf("%d\n", 200*MiB))
				cpu, err := g.CPU()
				if err != nil || cpu != r.want.CPU {
					t.Fatalf("run %d: CPU %v, %v", i, cpu, err)
				}
				st, err := g.Stats()
				if err != nil {
					t.Fatal(err)
				}
				want := r.want
				if peak == "none" {
					want.MemoryPeak, want.NoPeak = 0, true // memory.current at the end
				}
				if st != want {
					t.Fatalf("run %d: %+v, want %+v", i, st, want)
				}
				if err := g.Settle(); err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(leaf); err == nil {
					t.Fatalf("run %d: leaf left after Settle", i)
				}
				if err := g.Settle(); err != nil { // idempotent
					t.Fatal(err)
				}
				if _, err := g.CPU(); !errors.Is(err, errNoRun) {
					t.Fatalf("CPU between runs: %v", err)
				}
			}
			destroyTwice(t, g, slot)
			var mk, rm int
			for _, op := range f.ops {
				mk += b2i(strings.HasPrefix(op, "mkdir pool/slot-0/run"))
				rm += b2i(op == "rmdir pool/slot-0/run")
			}
			if mk != 2 || rm != 2 {
				t.Fatalf("leaf mkdir %d, rmdir %d, want 2 and 2: %v", mk, rm, f.ops)
			}
		})
	}
}

// TestPerRunLeafWaitsOutEBUSY: removal retries while killed processes finish exiting
// and kills what is still there; a leaf that cannot go stays recorded and is removed by
// the next Reset or by Destroy, never forgotten.
func TestPerRunLeafWaitsOutEBUSY(t *testing.T) {
	f, parent := newFakeFS(t, "readonly")
	m := fakeManager(f, parent)
	g, err := m.Create("slot-0")
	if err != nil {
		t.Fatal(err)
	}
	leaf := filepath.Join(parent, "slot-0", leafName)
	lim := Limits{Memory: 64 * MiB, Pids: 8}

	// Processes still exiting: a few EBUSY, then it goes.
	if err := g.Reset(lim); err != nil {
		t.Fatal(err)
	}
	f.busy[leaf] = 5
	if err := g.Settle(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(leaf); err == nil {
		t.Fatal("leaf left")
	}

	// A process that survived the run: killed through cgroup.kill, then removed.
	if err := g.Reset(lim); err != nil {
		t.Fatal(err)
	}
	if err := f.join(leaf); err != nil {
		t.Fatal(err)
	}
	if err := g.Settle(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(leaf); err == nil {
		t.Fatal("leaf left")
	}
	if !slices.Contains(f.ops, "write pool/slot-0/run/cgroup.kill 1") {
		t.Fatalf("no cgroup.kill: %v", f.ops)
	}

	// A leaf that will not go: Settle fails, the leaf stays recorded.
	defer func(a, b time.Duration) { removeWait, removeWaitKilled = a, b }(removeWait, removeWaitKilled)
	removeWait, removeWaitKilled = time.Millisecond, 5*time.Millisecond
	if err := g.Reset(lim); err != nil {
		t.Fatal(err)
	}
	f.busy[leaf] = -1
	if err := g.Settle(); err == nil || !errors.Is(err, syscall.EBUSY) {
		t.Fatalf("Settle of a stuck leaf: %v", err)
	}
	if g.(*v2LeafGroup).run == nil {
		t.Fatal("a stuck leaf was forgotten")
	}
	if err := g.Reset(lim); err == nil {
		t.Fatal("Reset over a stuck leaf succeeded")
	}
	if err := g.Destroy(); err == nil {
		t.Fatal("Destroy over a stuck leaf succeeded")
	}
	if _, err := os.Stat(filepath.Join(parent, "slot-0")); err != nil {
		t.Fatal("slot removed under its leaf")
	}
	// The processes finally exit: the next Reset removes the old leaf and starts anew.
	f.busy[leaf] = 0
	if err := g.Reset(lim); err != nil {
		t.Fatal(err)
	}
	f.busy[leaf] = 2
	if err := g.Destroy(); err != nil {
		t.Fatal(err)
	}
	if err := g.Destroy(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(parent); slices.ContainsFunc(ents, func(e os.DirEntry) bool { return e.IsDir() }) {
		t.Fatalf("left under the pool: %v", ents)
	}
}

// TestAbortRemovesLeaf: a run that fails before Settle leaves no leaf behind.
func TestAbortRemovesLeaf(t *testing.T) {
	f, g, slot := fakeSlot(t, "readonly")
	leaf := filepath.Join(slot, leafName)
	if err := g.Reset(Limits{Memory: 64 * MiB}); err != nil {
		t.Fatal(err)
	}
	if err := f.join(leaf); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := g.Abort(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(leaf); err == nil {
		t.Fatal("leaf left after Abort")
	}
	if err := g.Settle(); err != nil {
		t.Fatal(err)
	}
	// In reset mode Abort is a no-op.
	f2, parent2 := newFakeFS(t, "reset")
	g2, err := fakeManager(f2, parent2).Create("slot-0")
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Destroy()
	if err := g2.Reset(Limits{Memory: 64 * MiB}); err != nil {
		t.Fatal(err)
	}
	n := len(f2.ops)
	if err := g2.Abort(); err != nil || len(f2.ops) != n {
		t.Fatalf("Abort in reset mode: %v, ops %v", err, f2.ops[n:])
	}
}

// TestLeafCreationFailureCleansUp: a leaf whose limits cannot be applied (the
// controller missing) fails Reset and is still removed by Abort/Destroy.
func TestLeafCreationFailureCleansUp(t *testing.T) {
	f, parent := newFakeFS(t, "readonly")
	f.set(parent, "cgroup.subtree_control", "pids\n") // memory not delegated
	m := fakeManager(f, parent)
	g, err := m.Create("slot-0")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Reset(Limits{Memory: 64 * MiB}); err == nil {
		t.Fatal("Reset without a memory controller succeeded")
	}
	if err := g.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := g.Destroy(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(parent, "slot-0")); err == nil {
		t.Fatal("slot left")
	}
}
