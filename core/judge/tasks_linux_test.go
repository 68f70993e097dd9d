package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"oj/core/testenv"
	"oj/sandbox/mountinfo"
)

// A worker killed before its shutdown leaves its tasks tmpfs mounted (and whatever else
// was mounted below its work dir); the next one on the same work dir takes the tmpfs
// over, emptied and at its own size, and detaches everything else, so that mounts never
// pile up from one killed worker to the next.
func TestMountTasksTakesOverAPredecessorsMounts(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	const size = 64 << 20
	mount := func(t *testing.T, dir string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name       string
		size       int64
		setup      func(t *testing.T, work, tasks string)
		onTasks    int      // mounts on tasks afterwards
		found      []string // in what mountTasks reports
		stillThere []string // paths that must survive
	}{
		{"nothing left", size, func(*testing.T, string, string) {}, 1, nil, nil},
		{"a killed worker's tasks tmpfs", size, func(t *testing.T, work, tasks string) {
			if _, err := mountTasks(work, tasks, 2*size); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(tasks, "old-task", "box"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, 1, []string{"reused the tasks tmpfs on"}, nil},
		{"stacked mounts, a mount inside the tasks tmpfs and one elsewhere", size, func(t *testing.T, work, tasks string) {
			mount(t, tasks)
			mount(t, tasks)
			mount(t, filepath.Join(tasks, "old-task"))
			mount(t, filepath.Join(work, "pch"))
		}, 1, []string{"unmounted the tmpfs a previous worker left on"}, nil},
		{"a work dir on a file system of its own", size, func(t *testing.T, work, tasks string) {
			mount(t, work)
			if err := os.WriteFile(filepath.Join(work, "keep"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, 1, nil, []string{"keep"}},
		{"tasks without a tmpfs now", 0, func(t *testing.T, work, tasks string) {
			mount(t, tasks)
		}, 0, []string{"unmounted the tmpfs"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			work := filepath.Join(testenv.VarTmpDir(t, "oj-tasks-mount-"), "work")
			tasks := filepath.Join(work, "tasks")
			tc.setup(t, work, tasks)
			found, err := mountTasks(work, tasks, tc.size)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range tc.found {
				if !strings.Contains(strings.Join(found, "\n"), f) {
					t.Errorf("mountTasks reported %q, want %q among them", found, f)
				}
			}
			ms, err := mountinfo.Read()
			if err != nil {
				t.Fatal(err)
			}
			below := mountinfo.Below(ms, work)
			if len(below) != tc.onTasks {
				t.Fatalf("mounts below the work dir: %+v, want %d, on %s", below, tc.onTasks, tasks)
			}
			for _, m := range below {
				if m.Point != tasks || m.FSType != "tmpfs" {
					t.Fatalf("left mounted below the work dir: %+v", m)
				}
			}
			entries, err := os.ReadDir(tasks)
			if err != nil || len(entries) != 0 {
				t.Fatalf("tasks holds %v (%v), want nothing", entries, err)
			}
			if tc.onTasks > 0 {
				var st unix.Statfs_t
				if err := unix.Statfs(tasks, &st); err != nil {
					t.Fatal(err)
				}
				if got := int64(st.Blocks) * st.Bsize; got != tc.size {
					t.Errorf("tasks tmpfs of %d bytes, want %d", got, tc.size)
				}
			}
			for _, p := range tc.stillThere {
				if _, err := os.Stat(filepath.Join(work, p)); err != nil {
					t.Errorf("%s: %v", p, err)
				}
			}
			if err := unmountTasks(tasks, tc.size); err != nil {
				t.Fatal(err)
			}
		})
	}
}
