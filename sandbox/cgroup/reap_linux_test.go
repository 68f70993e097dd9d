package cgroup

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReapSiblingsOnV2: the cgroups of a dead pool (its slots and a per-run leaf with
// a process still in it) are removed deepest first; the Manager's own pool and a live
// one are not touched.
func TestReapSiblingsOnV2(t *testing.T) {
	f, _ := newFakeFS(t, "readonly")
	top := filepath.Join(f.root, "oj")
	f.populate(top, "cpu io memory pids")
	f.set(top, "cgroup.subtree_control", "memory pids\n")
	mk := func(rel ...string) string {
		d := filepath.Join(append([]string{top}, rel...)...)
		if err := f.Mkdir(d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	own, dead, live := mk("pool-1-10-1"), mk("pool-2-20-1"), mk("pool-3-30-1")
	for _, p := range []string{dead, live} {
		f.set(p, "cgroup.subtree_control", "memory pids\n")
	}
	mk("pool-2-20-1", "slot-0-0")
	f.set(filepath.Join(dead, "slot-0-0"), "cgroup.subtree_control", "memory pids\n")
	leaf := mk("pool-2-20-1", "slot-0-0", "run")
	if err := f.join(leaf); err != nil {
		t.Fatal(err)
	}
	mk("pool-3-30-1", "slot-0-0")
	m := &Manager{v2: true, fs: f, parents: map[string]string{"": own}}
	reaped, err := m.ReapSiblings(func(name string) bool { return strings.HasPrefix(name, "pool-2-") })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(reaped, []string{dead}) {
		t.Fatalf("reaped %v, want %v", reaped, []string{dead})
	}
	for _, d := range []string{dead, leaf} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s is still there", d)
		}
	}
	for _, d := range []string{own, live, filepath.Join(live, "slot-0-0")} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was touched: %v", d, err)
		}
	}
	var rmdirs []string
	for _, op := range f.ops {
		if strings.HasPrefix(op, "rmdir ") {
			rmdirs = append(rmdirs, op)
		}
	}
	want := []string{"rmdir oj/pool-2-20-1/slot-0-0/run", "rmdir oj/pool-2-20-1/slot-0-0", "rmdir oj/pool-2-20-1"}
	if len(rmdirs) < 3 || !slices.Equal(rmdirs[len(rmdirs)-3:], want) {
		t.Errorf("removals %v, want them to end with %v (deepest first)", rmdirs, want)
	}
}
