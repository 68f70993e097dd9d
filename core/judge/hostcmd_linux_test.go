package judge

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The builds a worker runs on the host at start — precompiled headers and warm build
// caches — succeed in the PID namespace runOnHost gives them: the test judge's own,
// built before the tests (TestMain waits for them), are ready.
func TestSetUpBuildsRunOnHost(t *testing.T) {
	needSandbox(t)
	for _, l := range testJudge.Languages().All() {
		if !testJudge.Supports(l.ID) {
			continue
		}
		if l.PrecompiledHeader != nil && testJudge.pch.dir(l) == "" {
			t.Errorf("%s: no precompiled header", l.ID)
		}
		if l.CompileCache != nil && testJudge.warm.template(l) == "" {
			t.Errorf("%s: no warm build cache", l.ID)
		}
	}
}

// hostBuildHelper, set in the environment, makes the test binary a stand-in worker
// (see TestMain) whose build on the host starts a shell that leaves a sleep behind.
const hostBuildHelper = "OJ_TEST_HOST_BUILD_HELPER"

// A build on the host, and every process it started, dies with the process that ran
// it, even when that one is killed with SIGKILL.
func TestHostBuildDiesWithItsWorker(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("PID namespaces need root")
	}
	marker := "oj-host-build-" + strconv.Itoa(os.Getpid())
	helper := exec.Command(os.Args[0])
	helper.Env = append(os.Environ(), hostBuildHelper+"=1", "OJ_TEST_MARKER="+marker)
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	// The sleeps are the helper's grandchildren and further down; they carry the
	// marker in their environment.
	deadline := time.Now().Add(30 * time.Second)
	for len(withMarker(marker)) < 2 {
		if time.Now().After(deadline) {
			_ = helper.Process.Kill()
			t.Fatalf("the helper's sleeps never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = helper.Wait()
	deadline = time.Now().Add(5 * time.Second)
	for pids := withMarker(marker); len(pids) > 0; pids = withMarker(marker) {
		if time.Now().After(deadline) {
			t.Fatalf("processes of the killed helper's build still run: %v", pids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// withMarker lists the sleep processes whose environment holds marker.
func withMarker(marker string) []string {
	ents, _ := os.ReadDir("/proc")
	var pids []string
	for _, e := range ents {
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !strings.Contains(string(env), "OJ_TEST_MARKER="+marker+"\x00") {
			continue
		}
		if comm, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm")); strings.TrimSpace(string(comm)) == "sleep" {
			pids = append(pids, e.Name())
		}
	}
	return pids
}
