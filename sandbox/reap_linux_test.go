package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// poolHolderArg makes the test binary a worker that starts a pool, runs one program in
// it, prints the pool's cgroup directories and waits to be killed (see TestMain).
const poolHolderArg = "oj-sandbox-test-pool-holder"

func poolHolder() int {
	cfg := DefaultConfig()
	cfg.PoolSize = 1
	p, err := NewPool(cfg)
	if err != nil {
		println(err.Error())
		return 1
	}
	if _, err := p.Run(context.Background(), Spec{Args: []string{"true"}}); err != nil {
		println(err.Error())
		return 1
	}
	var dirs []string
	for _, parent := range p.cg.Parents() {
		dirs = append(dirs, parent)
		subs, _ := filepath.Glob(filepath.Join(parent, "slot-*"))
		dirs = append(dirs, subs...)
	}
	_ = json.NewEncoder(os.Stdout).Encode(dirs)
	_, _ = os.Stdin.Read(make([]byte, 1)) // until killed
	return 0
}

// startHolder starts a pool-holding worker and returns it with its cgroup directories.
func startHolder(t *testing.T) (*exec.Cmd, []string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], poolHolderArg)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var dirs []string
	line, err := bufio.NewReader(out).ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &dirs)
	}
	if err != nil || len(dirs) == 0 {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("pool holder: %q %v", line, err)
	}
	return cmd, dirs
}

// TestDeadWorkersCgroupsAreReaped: a worker killed with SIGKILL leaves its pool's
// cgroups; the next pool to start removes them, and leaves a live worker's alone.
func TestDeadWorkersCgroupsAreReaped(t *testing.T) {
	dead, deadDirs := startHolder(t)
	live, liveDirs := startHolder(t)
	if err := dead.Process.Kill(); err != nil { // SIGKILL: no Close, no cleanup
		t.Fatal(err)
	}
	_ = dead.Wait()
	for _, d := range deadDirs {
		if _, err := os.Stat(d); err != nil {
			t.Fatalf("the killed worker's cgroup %s is already gone (%v): nothing to test", d, err)
		}
	}
	p := onePool(t)
	reaped, err := p.Reaped()
	if err != nil {
		t.Errorf("reap: %v", err)
	}
	t.Logf("reaped %v", reaped)
	for _, d := range deadDirs {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("the killed worker's cgroup %s is still there", d)
		}
	}
	for _, d := range liveDirs {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("the live worker's cgroup %s was touched: %v", d, err)
		}
		if slices.Contains(reaped, d) {
			t.Errorf("the live worker's cgroup %s is reported reaped", d)
		}
	}
	// The live worker stops the way a killed one does; a later pool cleans up after it.
	_ = live.Process.Kill()
	_ = live.Wait()
	q := onePool(t)
	if _, err := q.Reaped(); err != nil {
		t.Errorf("reap: %v", err)
	}
	for _, d := range liveDirs {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("the second killed worker's cgroup %s is still there", d)
		}
	}
}
