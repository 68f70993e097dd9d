package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// onePool starts a pool of one slot, so that consecutive runs share it, with work dir,
// /tmp and /dev/shm large enough to leave 200 MiB behind.
func onePool(t *testing.T) *Pool {
	t.Helper()
	cfg := DefaultConfig()
	cfg.PoolSize = 1
	cfg.TmpBytes, cfg.ShmBytes, cfg.WorkDirBytes = 300*MiB, 300*MiB, 300*MiB
	p, err := NewPool(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	return p
}

func runIn(t *testing.T, p *Pool, spec Spec) Result {
	t.Helper()
	spec.ReadOnly = append(spec.ReadOnly, bins)
	if spec.Limits.CPU == 0 {
		spec.Limits.CPU = 2 * time.Second
	}
	if spec.Limits.Output == 0 {
		spec.Limits.Output = 512 * MiB
	}
	res, err := p.Run(context.Background(), spec)
	if err != nil {
		t.Fatalf("%v: %v", spec.Args, err)
	}
	t.Logf("%v: status %s exit %d signal %d cpu %v memory %d KiB: %q %s",
		spec.Args, res.Status, res.ExitCode, res.Signal, res.CPU, res.Memory>>10, res.Stdout, res.Error)
	return res
}

// TestNothingLeftForTheNextRun: what one run leaves in a slot — SysV shared memory,
// message queues and semaphores, a POSIX message queue, 200 MiB in /tmp, /dev/shm or
// the work dir — is neither visible to the next run in the same slot nor charged to
// it: after each, an honest run that touches 200 MiB under a 256 MiB limit is OK.
func TestNothingLeftForTheNextRun(t *testing.T) {
	p := onePool(t)
	dir := t.TempDir()
	honest := func(t *testing.T) {
		t.Helper()
		res := runIn(t, p, Spec{Args: []string{bin("malloc"), "200"}, Limits: Limits{Memory: 256 * MiB}})
		if res.Status != OK || res.Memory > 230*MiB {
			t.Fatalf("honest 200 MiB run after the leftover: status %s (%s), memory %d MiB; want OK and about 200 MiB",
				res.Status, res.Error, res.Memory/MiB)
		}
	}
	t.Run("IPC objects", func(t *testing.T) {
		defer func(gen int) { t.Logf("slot cgroups replaced: %d", p.slots[0].gen-gen) }(p.slots[0].gen)
		if res := runIn(t, p, Spec{Args: []string{bin("isolation"), "ipc-leave", "200"}, Limits: Limits{Memory: 256 * MiB}}); res.Status != OK || string(res.Stdout) != "left\n" {
			t.Fatalf("run 1: status %s stdout %q", res.Status, res.Stdout)
		}
		if res := runIn(t, p, Spec{Args: []string{bin("isolation"), "ipc-look"}}); res.Status != OK || string(res.Stdout) != "clean\n" {
			t.Fatalf("run 2 sees run 1's IPC objects: status %s stdout %q", res.Status, res.Stdout)
		}
		honest(t)
	})
	for _, where := range []string{"/tmp/left", "/dev/shm/left", "/w/left"} {
		t.Run("200 MiB in "+filepath.Dir(where), func(t *testing.T) {
			spec := Spec{Args: []string{bin("isolation"), "fill", where, "200"}, Limits: Limits{Memory: 256 * MiB}}
			if strings.HasPrefix(where, "/w/") {
				spec.Dir, spec.DiscardWrites = dir, true
			}
			if res := runIn(t, p, spec); res.Status != OK || string(res.Stdout) != "filled\n" {
				t.Fatalf("run 1: status %s stdout %q", res.Status, res.Stdout)
			}
			res := runIn(t, p, Spec{Args: []string{"sh", "-c", "ls -A /tmp /dev/shm /w"}, Dir: dir})
			if res.Status != OK || strings.Contains(string(res.Stdout), "left") {
				t.Fatalf("run 2 sees run 1's file: status %s stdout %q", res.Status, res.Stdout)
			}
			honest(t)
		})
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("the work dir was written: %v", ents)
	}
}

// TestWorkDirWrites: a run sees Dir's files and may write over them; with DiscardWrites
// the next run sees Dir as it was, and without it the writes are copied back (files,
// directories, symlinks, removals) while Dir's files are never changed in place.
func TestWorkDirWrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{"in.txt": "3 4\n", "gone": "x"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := "cat in.txt > copy && echo new > new.txt && mkdir -p d/e && echo deep > d/e/f && ln -s /etc/shadow link && rm -f gone && echo ran"
	res := run(t, Spec{Args: []string{"sh", "-c", script}, Dir: dir, DiscardWrites: true})
	if res.Status != OK || string(res.Stdout) != "ran\n" {
		t.Fatalf("discarding run: status %s stdout %q stderr %q", res.Status, res.Stdout, res.Stderr)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("DiscardWrites: the work dir holds %v, want in.txt and gone only", ents)
	}
	res = run(t, Spec{Args: []string{"sh", "-c", script}, Dir: dir})
	if res.Status != OK {
		t.Fatalf("writing run: status %s stderr %q", res.Status, res.Stderr)
	}
	for name, want := range map[string]string{"copy": "3 4\n", "new.txt": "new\n", "d/e/f": "deep\n", "in.txt": "3 4\n"} {
		if b, err := ReadWorkFile(dir, name, 100); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
	if target, err := os.Readlink(filepath.Join(dir, "link")); err != nil || target != "/etc/shadow" {
		t.Errorf("symlink copied back as %q, %v", target, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "gone")); err == nil {
		t.Error("a file the run removed is still there")
	}
	res = run(t, Spec{Args: []string{"sh", "-c", "echo changed > in.txt"}, Dir: dir})
	if res.Status != RE {
		t.Errorf("overwriting the caller's root-owned file: status %s, want RE (permission denied)", res.Status)
	}
}

// TestShmOpen: POSIX shared memory works (/dev/shm is a writable per-run tmpfs) and
// counts against the run's memory limit.
func TestShmOpen(t *testing.T) {
	p := onePool(t)
	if res := runIn(t, p, Spec{Args: []string{bin("isolation"), "shm-open", "32"}}); res.Status != OK || string(res.Stdout) != "ok\n" || res.Memory < 32*MiB {
		t.Fatalf("shm_open of 32 MiB: status %s stdout %q memory %d MiB; want OK, ok and ≥ 32 MiB", res.Status, res.Stdout, res.Memory/MiB)
	}
	res := runIn(t, p, Spec{Args: []string{bin("isolation"), "fill", "/dev/shm/big", "200"}, Limits: Limits{Memory: 64 * MiB}})
	if res.Status != MLE && !(res.Status == RE && strings.HasPrefix(string(res.Stdout), "write failed")) {
		t.Fatalf("200 MiB in /dev/shm under a 64 MiB limit: status %s stdout %q; want MLE or a failed write", res.Status, res.Stdout)
	}
	if res.Memory > 64*MiB+MiB {
		t.Fatalf("memory %d MiB over the 64 MiB limit", res.Memory/MiB)
	}
	if res := runIn(t, p, Spec{Args: []string{bin("isolation"), "unix"}}); res.Status != OK || string(res.Stdout) != "ok\n" {
		t.Fatalf("AF_UNIX sockets: status %s stdout %q", res.Status, res.Stdout)
	}
}

// TestUndrainedChargeReplacesSlotCgroup: a charge that outlives the run (here 100 MiB
// of output into a file on a host tmpfs, which stays charged to the cgroup that wrote
// it) makes the slot take a new cgroup, so the next run has its whole limit.
func TestUndrainedChargeReplacesSlotCgroup(t *testing.T) {
	p := onePool(t)
	host, err := os.MkdirTemp("/dev/shm", "oj-sandbox-test-")
	if err != nil {
		t.Skip("no host tmpfs at /dev/shm:", err)
	}
	defer os.RemoveAll(host)
	gen := p.slots[0].gen
	res := runIn(t, p, Spec{Args: []string{"head", "-c", "104857600", "/dev/zero"}, StdoutPath: filepath.Join(host, "out")})
	if res.Status != OK || res.StdoutBytes != 100*MiB {
		t.Fatalf("status %s, %d bytes out", res.Status, res.StdoutBytes)
	}
	// A group reset in place is replaced; on a v2 kernel whose peak cannot be reset, the
	// run's own leaf went with the run and its charge moved up to the slot's cgroup,
	// which limits nothing: either way the next run has its whole limit.
	if p.slots[0].gen == gen && !p.cg.PerRunLeaf() {
		t.Fatal("the slot kept the cgroup its run left 100 MiB charged to")
	}
	res = runIn(t, p, Spec{Args: []string{bin("malloc"), "200"}, Limits: Limits{Memory: 256 * MiB}})
	if res.Status != OK {
		t.Fatalf("honest 200 MiB run in the slot's new cgroup: status %s (%s)", res.Status, res.Error)
	}
}

// TestHostileScratchLeftovers: /tmp and /dev/shm are emptied after a run, not remounted,
// so what a run leaves there on purpose — a directory it made unreadable, a FIFO,
// symlinks to the work dir and to /, a tree deeper than the walk goes — must still be
// gone for the next run, and the work dir behind the symlinks untouched.
func TestHostileScratchLeftovers(t *testing.T) {
	p := onePool(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keep"), []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deep := "/tmp/deep" + strings.Repeat("/d", 100)
	leave := strings.Join([]string{
		"mkdir -p /tmp/a/b/c", "echo x > /tmp/a/b/c/f", "chmod 000 /tmp/a/b /tmp/a",
		"mkfifo /tmp/fifo /dev/shm/fifo", "ln -s / /tmp/root", "ln -s /w /dev/shm/w", "ln -s /w/keep /tmp/keep",
		"mkdir /dev/shm/x", "echo y > /dev/shm/x/y", "chmod 000 /dev/shm/x",
	}, " && ")
	for _, script := range []string{leave, "mkdir -p " + deep + " && echo z > " + deep + "/z"} {
		if res := runIn(t, p, Spec{Args: []string{"sh", "-c", script + " && echo left"}, Dir: dir, DiscardWrites: true}); res.Status != OK || string(res.Stdout) != "left\n" {
			t.Fatalf("run 1 (%s): status %s stdout %q stderr %q", script, res.Status, res.Stdout, res.Stderr)
		}
		res := runIn(t, p, Spec{Args: []string{"sh", "-c", "ls -A /tmp /dev/shm; cat /w/keep"}, Dir: dir})
		if want := "/dev/shm:\n\n/tmp:\nkept\n"; res.Status != OK || string(res.Stdout) != want {
			t.Fatalf("run 2 after %q: status %s stdout %q; want %q", script, res.Status, res.Stdout, want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "keep")); err != nil || string(b) != "kept\n" {
		t.Fatalf("the work dir's file behind the symlinks: %q, %v", b, err)
	}
}
