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
	// The sandbox's inits are this binary too, and the compilers the worker runs at
	// start (precompiled headers, warm build caches) work in its work dir: all go with
	// the worker, instead of writing into the work dir of the next one.
	deadline := time.Now().Add(5 * time.Second)
	for pids := processesOf(t, bin, work); len(pids) > 0; pids = processesOf(t, bin, work) {
		if time.Now().After(deadline) {
			t.Fatalf("processes outlive the killed worker: %v\n%s", pids, logs.String())
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

// processesOf lists the processes whose executable is bin or whose working directory is
// in dir, as "pid exe".
func processesOf(t *testing.T, bin, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil {
			continue
		}
		cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if strings.TrimSuffix(exe, " (deleted)") == bin || cwd == dir || strings.HasPrefix(cwd, dir+"/") {
			out = append(out, e.Name()+" "+exe)
		}
	}
	return out
}
