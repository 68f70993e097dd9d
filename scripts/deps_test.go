package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The tools deps.sh and the scripts before it use, taken from the machine; apt-get and
// dpkg-query are stand-ins, so nothing is installed and promtool is never on PATH.
var depsTools = []string{"dirname", "id", "tee", "chmod", "rm", "comm", "sort", "env", "ln", "mkdir", "awk", "tr"}

// depsBin makes a PATH of the machine's depsTools and extra, and of stand-ins for
// dpkg-query (nothing is installed) and apt-get, which logs what it is asked to install
// to log and, for an install, enables redis-server the way its package does: a systemd
// wants link, its alias and a SysV start link, under root.
func depsBin(t *testing.T, root, log string, extra ...string) string {
	t.Helper()
	bin := t.TempDir()
	for _, tool := range append(slices.Clone(depsTools), extra...) {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s not installed", tool)
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	stub := func(name, body string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/bash\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	stub("dpkg-query", "exit 1\n")
	stub("apt-get", `[[ $* == *install* ]] || exit 0
printf '%s\n' "$*" >>`+log+`
mkdir -p `+root+`/etc/systemd/system/multi-user.target.wants `+root+`/etc/rc2.d
ln -sf /lib/systemd/system/redis-server.service `+root+`/etc/systemd/system/multi-user.target.wants/redis-server.service
ln -sf /lib/systemd/system/redis-server.service `+root+`/etc/systemd/system/redis.service
ln -sf ../init.d/redis-server `+root+`/etc/rc2.d/S01redis-server
`)
	return bin
}

// depsRoot is a system root where ssh is enabled before the install, and redis-server's
// unit file exists (systemctl --root reads its [Install] section to disable it).
func depsRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"etc/systemd/system/multi-user.target.wants", "lib/systemd/system", "usr/sbin"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	unit := "[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\nAlias=redis.service\n"
	if err := os.WriteFile(filepath.Join(root, "lib/systemd/system/redis-server.service"), []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/lib/systemd/system/ssh.service", filepath.Join(root, "etc/systemd/system/multi-user.target.wants/ssh.service")); err != nil {
		t.Fatal(err)
	}
	return root
}

// runUntilDeps runs script (run.sh or test.sh) with PATH=bin: deps.sh asks apt-get to
// install every package of its set, apt-get installs nothing, and the script stops
// there. It returns the packages asked for.
func runUntilDeps(t *testing.T, script, bin, root, log string) []string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("deps.sh installs through sudo when not root")
	}
	cmd := exec.Command("/bin/bash", script)
	cmd.Env = []string{"PATH=" + bin, "OJ_DEPS_ROOT=" + root, "HOME=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "deps: still missing after apt-get install") {
		t.Fatalf("%s: want it to stop at deps with packages still missing, got %v:\n%s", script, err, out)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("%s: apt-get install was not run: %v\n%s", script, err, out)
	}
	return strings.Fields(string(b))
}

// make run installs what running needs, make test that and its tools: promtool (Debian's
// prometheus) only for the tests.
func TestMakeRunInstallsWhatRunningNeedsAndMakeTestItsTools(t *testing.T) {
	runTools := []string{"postgresql", "redis-server", "libseccomp-dev", "pkg-config", "gcc", "python3", "pypy3", "kotlin", "ghc"}
	testTools := []string{"prometheus", "tmux", "openssl", "curl"}
	for _, c := range []struct {
		script     string
		want, dont []string
	}{
		{"run.sh", runTools, testTools},
		{"test.sh", append(slices.Clone(runTools), testTools...), nil},
	} {
		t.Run(c.script, func(t *testing.T) {
			root, log := depsRoot(t), filepath.Join(t.TempDir(), "apt.log")
			got := runUntilDeps(t, c.script, depsBin(t, root, log, "systemctl"), root, log)
			for _, p := range c.want {
				if !slices.Contains(got, p) {
					t.Errorf("%s does not install %s: apt-get %v", c.script, p, got)
				}
			}
			for _, p := range c.dont {
				if slices.Contains(got, p) {
					t.Errorf("%s installs %s, which only the tests need: apt-get %v", c.script, p, got)
				}
			}
		})
	}
}

// A promtool already on PATH is used as it is: make test does not install prometheus.
func TestMakeTestKeepsAPromtoolOnPath(t *testing.T) {
	root, log := depsRoot(t), filepath.Join(t.TempDir(), "apt.log")
	bin := depsBin(t, root, log, "systemctl")
	if err := os.WriteFile(filepath.Join(bin, "promtool"), []byte("#!/bin/bash\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := runUntilDeps(t, "test.sh", bin, root, log); slices.Contains(got, "prometheus") {
		t.Errorf("test.sh installs prometheus with a promtool on PATH: apt-get %v", got)
	}
}

// The services an install enabled (redis-server's, in every form) are disabled again,
// with systemctl when there is one and with update-rc.d and deb-systemd-helper when
// not; what was enabled before stays enabled.
func TestInstallLeavesNoNewServiceEnabled(t *testing.T) {
	links := func(root string) []string {
		var out []string
		for _, pat := range []string{"etc/systemd/system/*.wants/*", "etc/systemd/system/*.service", "etc/rc2.d/S*"} {
			m, _ := filepath.Glob(filepath.Join(root, pat))
			for _, f := range m {
				out = append(out, strings.TrimPrefix(f, root+"/"))
			}
		}
		return out
	}
	t.Run("systemctl", func(t *testing.T) {
		root, log := depsRoot(t), filepath.Join(t.TempDir(), "apt.log")
		runUntilDeps(t, "run.sh", depsBin(t, root, log, "systemctl"), root, log)
		// systemctl --root leaves SysV links to systemd-sysv-install, which knows no root;
		// the systemd links and the alias are what it must have removed.
		got := slices.DeleteFunc(links(root), func(s string) bool { return strings.HasPrefix(s, "etc/rc2.d/") })
		if want := []string{"etc/systemd/system/multi-user.target.wants/ssh.service"}; !slices.Equal(got, want) {
			t.Errorf("enabled after the install: %v, want %v", got, want)
		}
		if _, err := os.Lstat(filepath.Join(root, "usr/sbin/policy-rc.d")); !os.IsNotExist(err) {
			t.Errorf("policy-rc.d left behind: %v", err)
		}
	})
	t.Run("without systemctl", func(t *testing.T) {
		root, log := depsRoot(t), filepath.Join(t.TempDir(), "apt.log")
		bin := depsBin(t, root, log)
		calls := filepath.Join(t.TempDir(), "calls")
		for _, tool := range []string{"update-rc.d", "deb-systemd-helper"} {
			body := "printf '%s\\n' \"" + tool + " $*\" >>" + calls + "\n"
			if err := os.WriteFile(filepath.Join(bin, tool), []byte("#!/bin/bash\n"+body), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		runUntilDeps(t, "run.sh", bin, root, log)
		b, err := os.ReadFile(calls)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(b), "update-rc.d redis-server disable\ndeb-systemd-helper disable redis-server.service\n"; got != want {
			t.Errorf("calls:\n%s\nwant:\n%s", got, want)
		}
	})
}
