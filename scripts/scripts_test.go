// Package scripts tests the shell scripts that the make targets run, where their
// behaviour can be checked without the whole of make run: the work dir run.sh chooses,
// what stop.sh stops, unmounts and removes, and what deps.sh installs for make run and
// for make test and the services it leaves disabled (deps_test.go).
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

// make run's banner names every role `ojd all` runs — the API at the address it bound,
// the dispatcher, the worker with its concurrency from the config — the stack under
// them, and the token it prints by name and role.
func TestRunBannerListsEveryRoleAndTheToken(t *testing.T) {
	t.Parallel()
	config := "api:\n  listen: 127.0.0.1:0\nworker:\n  name: \"\"\n  concurrency:\n    heavy: 3\n    light: 2\n  lease: 30s\nsandbox:\n  x: 1\n"
	cmd := exec.Command("bash", "-c", `. ./banner.sh && oj_lanes`)
	cmd.Stdin = strings.NewReader(config)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "heavy 3, light 2" {
		t.Fatalf("oj_lanes: %q %v", out, err)
	}
	tokenFile := filepath.Join(t.TempDir(), "admin.token")
	if err := os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command("bash", "-c", `. ./banner.sh && oj_banner "$@"`, "sh", "http://127.0.0.1:41234", "/c/var/ojd.yaml",
		"/c/var/stack", tokenFile, "admin-20261128", "heavy 3, light 2", "/c/var/work", "postgres://postgres@127.0.0.1:55432/oj",
		"127.0.0.1:56379", "/c/bin/ojd", "--config", "/c/var/ojd.yaml").CombinedOutput()
	if err != nil {
		t.Fatalf("oj_banner: %v\n%s", err, out)
	}
	banner := string(out)
	for _, want := range []string{
		"\n  api         http://127.0.0.1:41234\n", "\n  dispatcher  ", "\n  worker      ", "heavy 3, light 2 at",
		"PostgreSQL postgres://postgres@127.0.0.1:55432/oj", "Redis 127.0.0.1:56379",
		`admin token "admin-20261128" (role admin`, "export OJCTL_SERVER=http://127.0.0.1:41234\n",
		"export OJCTL_TOKEN=s3cret\n", "/c/bin/ojd --config /c/var/ojd.yaml token create --name NAME",
	} {
		if !strings.Contains(banner, want) {
			t.Errorf("the banner lacks %q:\n%s", want, banner)
		}
	}
}
