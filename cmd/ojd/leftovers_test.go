package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"oj/sandbox/mountinfo"
)

// A worker stopped the way a supervisor does when SIGTERM is not enough (SIGKILL) leaves
// its tasks tmpfs mounted and nothing else: no process of its sandbox outlives it. The
// next worker on the same work dir takes that tmpfs over instead of mounting another on
// top, and, stopped with SIGTERM, leaves nothing mounted.
func TestWorkerAfterAKilledOne(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the worker's sandbox needs root")
	}
	dir, bin := buildOjd(t)
	work := filepath.Join(dir, "work")
	cfg := writeConfig(t, dir, "judge:\n  work_dir: "+work+"\n  cache:\n    dir: "+dir+"/cache\n")
	start := func() (*exec.Cmd, *syncBuffer) {
		cmd := exec.Command(bin, "--config", cfg, "worker", "--metrics-listen", "")
		logs := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = logs, logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
		deadline := time.Now().Add(60 * time.Second)
		for !strings.Contains(logs.String(), "worker self-check passed") {
			if time.Now().After(deadline) {
				t.Fatalf("no self-check line within 60 s:\n%s", logs.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
		return cmd, logs
	}
	mounts := func() []mountinfo.Mount {
		t.Helper()
		ms, err := mountinfo.Read()
		if err != nil {
			t.Fatal(err)
		}
		return mountinfo.Below(ms, work)
	}
	tasks := mountinfo.Mount{Point: filepath.Join(work, "tasks"), FSType: "tmpfs"}

	first, logs := start()
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	if m := mounts(); len(m) != 1 || m[0] != tasks {
		t.Fatalf("after SIGKILL, mounted below the work dir: %+v; want the tasks tmpfs alone", m)
	}
	// The sandbox's inits are this binary too; they go with the worker.
	deadline := time.Now().Add(10 * time.Second)
	for pids := processesOf(t, bin); len(pids) > 0; pids = processesOf(t, bin) {
		if time.Now().After(deadline) {
			t.Fatalf("processes of %s outlive the killed worker: %v\n%s", bin, pids, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}

	second, logs := start()
	if !strings.Contains(logs.String(), "reused the tasks tmpfs on "+tasks.Point) {
		t.Errorf("the second worker does not say it reused the tasks tmpfs:\n%s", logs.String())
	}
	if m := mounts(); len(m) != 1 || m[0] != tasks {
		t.Fatalf("with the second worker, mounted below the work dir: %+v; want one tasks tmpfs", m)
	}
	stopWithSIGTERM(t, second, "worker", logs)
	if m := mounts(); len(m) != 0 {
		t.Fatalf("after SIGTERM, mounted below the work dir: %+v", m)
	}
}

// processesOf lists the pids whose executable is bin.
func processesOf(t *testing.T, bin string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, e := range ents {
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && strings.TrimSuffix(exe, " (deleted)") == bin {
			pids = append(pids, e.Name())
		}
	}
	return pids
}
