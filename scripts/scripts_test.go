// Package scripts tests the shell scripts that the make targets run, where their
// behaviour can be checked without the whole of make run: the work dir run.sh chooses,
// and what stop.sh stops, unmounts and removes.
package scripts

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"oj/sandbox"
	"oj/sandbox/mountinfo"
)

// sh runs a function of checkout.sh with args and returns what it printed.
func sh(t *testing.T, fn string, args ...string) string {
	t.Helper()
	out, err := exec.Command("bash", append([]string{"-c", `. ./checkout.sh && "$@"`, "sh", fn}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", fn, args, err, out)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// A checkout where the sandbox gives every run a fresh directory (a clone under /tmp)
// gets a work dir in /var/tmp named after it, one per checkout; any other keeps
// var/work. The shell's list of such directories is the sandbox's own.
func TestWorkDirOutsideWhatTheSandboxReplaces(t *testing.T) {
	for _, root := range []string{
		"/tmp/oj", "/tmp/a/b/oj", "/tmp", "/tmp/we ird;name", "/dev/shm/oj", "/proc/oj", "/w/oj",
		"/work/oj", "/tmpfoo/oj", "/home/me/src/oj", "/var/tmp/oj", "/wx/oj",
	} {
		t.Run(root, func(t *testing.T) {
			reserved := sandbox.ReservedDir(root)
			if got := sh(t, "oj_sandbox_dir", root); got != reserved {
				t.Errorf("oj_sandbox_dir %q = %q; sandbox.ReservedDir says %q", root, got, reserved)
			}
			work := sh(t, "oj_work_dir", root)
			if reserved == "" {
				if work != root+"/var/work" {
					t.Errorf("oj_work_dir %q = %q, want %s/var/work", root, work, root)
				}
				return
			}
			sum := sha256.Sum256([]byte(root))
			name := strings.Map(func(r rune) rune {
				if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-", r) {
					return r
				}
				return '_'
			}, filepath.Base(root))
			if want := "/var/tmp/oj-work-" + name + "-" + hex.EncodeToString(sum[:4]); work != want {
				t.Errorf("oj_work_dir %q = %q, want %q", root, work, want)
			}
			if r := sandbox.ReservedDir(work); r != "" {
				t.Errorf("oj_work_dir %q = %q, which is inside %s too", root, work, r)
			}
		})
	}
}

// make stop stops the checkout's ojd if it still runs and unmounts what a killed one
// left, under var/ and under a work dir in /var/tmp, mounts hidden under others and
// paths with spaces included; make distclean then removes bin/, var/ and that work dir.
func TestStopUnmountsAndRemovesWhatAKilledOjdLeft(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	// A checkout under /tmp, with the scripts stop.sh needs and no stack under var/.
	root, err := os.MkdirTemp("/tmp", "oj-stop-test-")
	if err != nil {
		t.Fatal(err)
	}
	work := sh(t, "oj_work_dir", root)
	t.Cleanup(func() {
		for _, d := range []string{root, work} {
			if ms, err := mountinfo.Read(); err == nil {
				for _, m := range mountinfo.Below(ms, d) {
					_ = unix.Unmount(m.Point, unix.MNT_DETACH)
				}
			}
			os.RemoveAll(d)
		}
	})
	for _, f := range []string{"checkout.sh", "stop.sh"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(root, "scripts"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "scripts", f), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mount := func(dir string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
			t.Fatal(err)
		}
	}
	leave := func() {
		mount(filepath.Join(work, "tasks"))
		mount(filepath.Join(root, "var", "odd dir", "inner"))
		mount(filepath.Join(root, "var", "odd dir")) // hides the one above
	}
	left := func() []mountinfo.Mount {
		ms, err := mountinfo.Read()
		if err != nil {
			t.Fatal(err)
		}
		return append(mountinfo.Below(ms, root), mountinfo.Below(ms, work)...)
	}
	stop := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("bash", append([]string{filepath.Join(root, "scripts", "stop.sh")}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("stop.sh %v: %v\n%s", args, err, out)
		}
		return string(out)
	}

	// An ojd of this checkout still running (a stand-in that ends on SIGTERM).
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	sleep, err := os.ReadFile("/bin/sleep")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "bin", "ojd"), sleep, 0o755); err != nil {
		t.Fatal(err)
	}
	ojd := exec.Command(filepath.Join(root, "bin", "ojd"), "300")
	if err := ojd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ojd.Process.Kill() })
	exited := make(chan error, 1)
	go func() { exited <- ojd.Wait() }()
	if err := os.MkdirAll(filepath.Join(root, "var"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "var", "ojd.pid"), []byte(strconv.Itoa(ojd.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	leave()

	out := stop()
	select {
	case err := <-exited:
		if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
			t.Errorf("the checkout's ojd ended with %v, want SIGTERM", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("the checkout's ojd still runs after stop.sh:\n%s", out)
	}
	if m := left(); len(m) != 0 {
		t.Fatalf("still mounted after stop.sh: %+v\n%s", m, out)
	}
	for _, want := range []string{"stopping ojd (pid", "no var/stack", "unmounted " + work + "/tasks", "unmounted " + root + "/var/odd dir/inner"} {
		if !strings.Contains(out, want) {
			t.Errorf("stop.sh output lacks %q:\n%s", want, out)
		}
	}
	for _, d := range []string{filepath.Join(root, "var"), work, filepath.Join(root, "bin")} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("stop.sh removed %s: %v", d, err)
		}
	}

	leave()
	out = stop("--remove")
	if m := left(); len(m) != 0 {
		t.Fatalf("still mounted after stop.sh --remove: %+v\n%s", m, out)
	}
	for _, d := range []string{filepath.Join(root, "var"), work, filepath.Join(root, "bin")} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("stop.sh --remove left %s: %v\n%s", d, err, out)
		}
	}
}
