package cgroup

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestV2GroupOnUnifiedMount exercises the v2 code (cpu.stat, cgroup.kill, removal) on
// the controller-less cgroup2 mount of a hybrid host, as far as that allows.
func TestV2GroupOnUnifiedMount(t *testing.T) {
	root := "/sys/fs/cgroup/unified"
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	if _, err := os.Stat(filepath.Join(root, "cgroup.procs")); err != nil {
		t.Skip("no cgroup2 mount at " + root)
	}
	dir := filepath.Join(root, "oj-test-v2")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	g := &v2Group{node: &node{dirs: map[string]string{"": dir}}}
	defer g.Destroy()
	f, err := os.Open(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		t.Fatal(err)
	}
	g.cpu = f
	// No memory or pids controller on this mount: limits cannot be applied here.
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	procs, err := g.ProcsFiles()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := procs[0].WriteString(itoa(cmd.Process.Pid)); err != nil {
		t.Fatal(err)
	}
	procs[0].Close()
	time.Sleep(200 * time.Millisecond)
	// Without the cpu controller usage_usec may lag; the parse must work.
	if cpu, err := g.CPU(); err != nil || cpu < 0 {
		t.Fatalf("v2 cpu %v, %v", cpu, err)
	}
	if err := g.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if err := g.Destroy(); err != nil {
		t.Fatal(err)
	}
}

// TestV2PerRunLeafOnUnifiedMount runs the per-run leaf sequence on this machine's real
// (controller-less) cgroup2 mount: the probe, a slot that is a parent only, a leaf per
// run that a process joins through the kept cgroup.procs descriptor, CPU from the
// leaf's cpu.stat, cgroup.kill on a populated subtree and on an empty leaf, removal
// waiting out EBUSY, and Destroy twice. Where the mount offers a controller (hugetlb)
// it is enabled for the slot's children, so that the kernel's "no internal processes"
// rule is checked for real: a process cannot join the slot, only its leaf.
func TestV2PerRunLeafOnUnifiedMount(t *testing.T) {
	root := "/sys/fs/cgroup/unified"
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	if _, err := os.Stat(filepath.Join(root, "cgroup.procs")); err != nil {
		t.Skip("no cgroup2 mount at " + root)
	}
	ctl := func(dir string) []string {
		b, _ := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
		return strings.Fields(string(b))
	}
	avail, _ := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
	hugetlb := slices.Contains(strings.Fields(string(avail)), "hugetlb")
	if hugetlb && !slices.Contains(ctl(root), "hugetlb") {
		if err := os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("+hugetlb"), 0); err != nil {
			hugetlb = false
		} else {
			t.Cleanup(func() {
				if err := os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("-hugetlb"), 0); err != nil {
					t.Errorf("restore %s: %v", root, err)
				}
			})
		}
	}
	parent := filepath.Join(root, "oj-test-leaf")
	if err := os.Mkdir(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := rmdirRetry(osFS{}, parent, time.Second); err != nil {
			t.Error(err)
		}
	})
	m := &Manager{v2: true, fs: osFS{}, parents: map[string]string{"": parent}}
	m.probe()
	if !m.PerRunLeaf() {
		t.Fatalf("no memory controller here, yet the probe chose reset-in-place: %s", m.Mode())
	}
	t.Logf("%s; no-internal-processes check with hugetlb: %v", m.Mode(), hugetlb)
	if hugetlb {
		if err := os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+hugetlb"), 0); err != nil {
			t.Fatal(err)
		}
	}
	g, err := m.Create("slot-0")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Destroy()
	slot := filepath.Join(parent, "slot-0")
	leaf := filepath.Join(slot, leafName)
	if hugetlb {
		if err := os.WriteFile(filepath.Join(slot, "cgroup.subtree_control"), []byte("+hugetlb"), 0); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 {
		if err := g.Reset(Limits{}); err != nil { // no controller here: no limit can apply
			t.Fatal(err)
		}
		procs, err := g.ProcsFiles()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid := []byte(itoa(cmd.Process.Pid))
		if hugetlb {
			err := os.WriteFile(filepath.Join(slot, "cgroup.procs"), pid, 0)
			if !errors.Is(err, syscall.EBUSY) {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				t.Fatalf("a process joined the slot itself: %v", err)
			}
		}
		if _, err := procs[0].Write(pid); err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		cpu, err := g.CPU()
		if err != nil || cpu <= 0 || cpu > time.Second {
			t.Errorf("run %d: leaf CPU %v, %v", i, cpu, err)
		}
		if err := g.Kill(); err != nil { // cgroup.kill of the slot reaches its leaf
			t.Fatal(err)
		}
		if err := cmd.Wait(); err == nil {
			t.Fatal("the process was not killed")
		}
		st, err := g.Stats()
		if err != nil || st.CPU < cpu || !st.NoPeak {
			t.Fatalf("run %d: stats %+v, %v", i, st, err)
		}
		if err := g.Settle(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(leaf); err == nil {
			t.Fatalf("run %d: leaf left", i)
		}
	}
	// cgroup.kill on an empty leaf, then a run that never started.
	if err := g.Reset(Limits{}); err != nil {
		t.Fatal(err)
	}
	if err := g.(*v2LeafGroup).run.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := g.Abort(); err != nil {
		t.Fatal(err)
	}
	destroyTwice(t, g, slot)
}
