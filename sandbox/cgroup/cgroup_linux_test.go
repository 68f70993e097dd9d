package cgroup

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

const v1Mountinfo = `25 30 0:23 / /sys/fs/cgroup rw - tmpfs tmpfs rw
26 25 0:24 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
27 25 0:25 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
28 25 0:26 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
29 25 0:27 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`

const v2Mountinfo = `30 1 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate
`

func TestPlan(t *testing.T) {
	cases := []struct {
		name, mountinfo, self, parent string
		version                       int
		wantV2                        bool
		want                          map[string]string
	}{
		{"v1 relative to our own memory cgroup", v1Mountinfo,
			"4:memory:/process_api/abc\n2:cpuacct:/\n8:pids:/\n0::/\n", "oj/pool-1", 0, false,
			map[string]string{
				"memory":  "/sys/fs/cgroup/memory/process_api/abc/oj/pool-1",
				"cpuacct": "/sys/fs/cgroup/cpuacct/oj/pool-1",
				"pids":    "/sys/fs/cgroup/pids/oj/pool-1",
			}},
		{"v1 absolute parent", v1Mountinfo,
			"4:memory:/x\n2:cpuacct:/x\n8:pids:/x\n", "/judge/p", 0, false,
			map[string]string{
				"memory":  "/sys/fs/cgroup/memory/judge/p",
				"cpuacct": "/sys/fs/cgroup/cpuacct/judge/p",
				"pids":    "/sys/fs/cgroup/pids/judge/p",
			}},
		{"v2 delegated service", v2Mountinfo,
			"0::/system.slice/ojd-worker.service\n", "oj/pool-1", 0, true,
			map[string]string{"": "/sys/fs/cgroup/system.slice/ojd-worker.service/oj/pool-1"}},
		{"v2 from the supervisor leaf an earlier pool made", v2Mountinfo,
			"0::/system.slice/ojd-worker.service/supervisor\n", "oj/pool-2", 0, true,
			map[string]string{"": "/sys/fs/cgroup/system.slice/ojd-worker.service/oj/pool-2"}},
		{"v2 forced on a hybrid host", v1Mountinfo,
			"4:memory:/a\n0::/\n", "oj", 2, true,
			map[string]string{"": "/sys/fs/cgroup/unified/oj"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mounts, err := cgroupMounts(strings.NewReader(c.mountinfo))
			if err != nil {
				t.Fatal(err)
			}
			self, err := selfCgroups(strings.NewReader(c.self))
			if err != nil {
				t.Fatal(err)
			}
			got, v2, err := plan(mounts, self, c.parent, c.version)
			if err != nil {
				t.Fatal(err)
			}
			if v2 != c.wantV2 || len(got) != len(c.want) {
				t.Fatalf("v2=%v %v, want v2=%v %v", v2, got, c.wantV2, c.want)
			}
			for k, v := range c.want {
				if got[k] != v {
					t.Errorf("%q: %s, want %s", k, got[k], v)
				}
			}
		})
	}
}

func TestFlatKeyed(t *testing.T) {
	cpuStat := "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n"
	if v, err := flatKeyed(cpuStat, "usage_usec"); err != nil || v != 1500 {
		t.Fatalf("usage_usec = %d, %v", v, err)
	}
	events := "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n"
	if v, err := flatKeyed(events, "oom_kill"); err != nil || v != 1 {
		t.Fatalf("oom_kill = %d, %v", v, err)
	}
	oomControl := "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n"
	if v, err := flatKeyed(oomControl, "oom_kill"); err != nil || v != 3 {
		t.Fatalf("v1 oom_kill = %d, %v", v, err)
	}
	if v, _ := parseInt("max\n"); v != -1 {
		t.Fatalf("max = %d", v)
	}
}

// TestRealGroup creates a run cgroup on this machine's hierarchy, puts a process in it,
// reads its counters, kills it and removes the group (twice: Destroy is idempotent).
func TestRealGroup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	m, err := Detect("oj-test/"+t.Name(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	}()
	g, err := m.New("run-1", Limits{Memory: 64 << 20, Pids: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Destroy()
	// A busy loop with no child: killing it leaves no orphan behind.
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	// Through the files a run's child joins by: on a v2 leaf group they are the current
	// run's leaf, not the group's own directory (which has children, so no processes).
	procs, err := g.ProcsFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range procs {
		if _, err := f.Write([]byte(itoa(cmd.Process.Pid))); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(200 * time.Millisecond)
	st, err := g.Stats()
	if err != nil {
		t.Fatal(err)
	}
	// Charges made before the move stay with the old cgroup, so only CPU is certain.
	if st.CPU <= 0 {
		t.Fatalf("stats %+v: want CPU counted", st)
	}
	if err := g.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if err := g.Destroy(); err != nil {
		t.Fatal(err)
	}
	if err := g.Destroy(); err != nil {
		t.Fatal(err)
	}
	for _, d := range dirsOf(g) {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s still exists", d)
		}
	}
}

// dirsOf returns the directories of a group a Manager created.
func dirsOf(g Group) map[string]string {
	switch g := g.(type) {
	case *v1Group:
		return g.dirs
	case *v2Group:
		return g.dirs
	case *v2LeafGroup:
		return g.dirs
	}
	return nil
}

func itoa(n int) string { return fmtInt(n) }

func fmtInt(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
