package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"oj/sandbox/cgroup"
)

// bins holds the test programs of testdata/, compiled once by TestMain. They live
// outside /tmp (the sandbox's own /tmp hides host paths there) and reach the sandbox as
// an extra read-only path, which that code path needs exercised anyway.
var bins string

func bin(name string) string { return filepath.Join(bins, name) }

func TestMain(m *testing.M) {
	MaybeRunChild()
	if len(os.Args) > 1 && os.Args[1] == poolHolderArg {
		os.Exit(poolHolder())
	}
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	if os.Geteuid() != 0 {
		fmt.Println("sandbox tests need root; skipping")
		return 0
	}
	mountsBefore := mountTable()
	rootsBefore := poolRoots()
	var err error
	bins, err = os.MkdirTemp("/var/tmp", "oj-sandbox-test-")
	if err != nil {
		fmt.Println(err)
		return 1
	}
	if err := os.Chmod(bins, 0o755); err != nil {
		fmt.Println(err)
		return 1
	}
	srcs, _ := filepath.Glob("testdata/*.c")
	for _, src := range srcs {
		out := bin(strings.TrimSuffix(filepath.Base(src), ".c"))
		cmd := exec.Command("gcc", "-O2", "-static", "-pthread", "-o", out, src)
		if b, err := cmd.CombinedOutput(); err != nil {
			fmt.Printf("compile %s: %v\n%s", src, err, b)
			os.RemoveAll(bins)
			return 1
		}
	}
	code := m.Run()
	if shared != nil {
		if err := shared.Close(); err != nil {
			fmt.Println("close the shared pool:", err)
			code = 1
		}
	}
	os.RemoveAll(bins)
	if left := leftovers(mountsBefore, rootsBefore); left != "" {
		fmt.Println("LEFTOVERS after the suite:\n" + left)
		return 1
	}
	return code
}

// mountTable is this process's mount table, one line per mount, ids stripped.
func mountTable() []string {
	b, _ := os.ReadFile("/proc/self/mountinfo")
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(l)
		if len(f) > 4 {
			out = append(out, f[3]+" "+f[4])
		}
	}
	return out
}

// leftovers lists any process, cgroup, mount or temp dir of ours that outlived the
// suite (invariant 10).
func leftovers(mountsBefore []string, rootsBefore map[string]bool) string {
	var b bytes.Buffer
	def := DefaultConfig()
	me := strconv.Itoa(os.Getpid())
	procs, _ := filepath.Glob("/proc/[0-9]*/status")
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var ppid, uid string
		for _, l := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(l, "PPid:"); ok {
				ppid = strings.TrimSpace(v)
			}
			if v, ok := strings.CutPrefix(l, "Uid:"); ok {
				uid = strings.Fields(v)[0]
			}
		}
		// Our slot inits are our children; everything a run started lives in an init's
		// PID namespace and dies with it. (A uid check would also see other suites run
		// concurrently on the same machine with the same uid range.)
		if ppid == me {
			fmt.Fprintf(&b, "process %s (ppid %s, uid %s)\n", p, ppid, uid)
		}
	}
	if m, err := cgroup.Detect(def.CgroupParent, 0); err == nil {
		for _, parent := range m.Parents() {
			left, _ := filepath.Glob(filepath.Join(parent, fmt.Sprintf("pool-%d-*", os.Getpid())))
			for _, l := range left {
				fmt.Fprintf(&b, "cgroup %s\n", l)
			}
		}
		_ = m.Close()
	}
	// Runs mount only inside their slots' namespaces; a leak would show here as a new
	// host mount under one of our paths. Only those count: other packages' suites run
	// concurrently and mount and unmount their own (the judge's tasks tmpfs).
	before := map[string]bool{}
	for _, m := range mountsBefore {
		before[m] = true
	}
	for _, m := range mountTable() {
		if !before[m] && strings.Contains(m, "oj-sandbox") {
			fmt.Fprintf(&b, "mount %s\n", m)
		}
	}
	// Only the pools' roots this suite made count: a process killed earlier on this host
	// (not this suite's) may have left its own.
	for r := range poolRoots() {
		if !rootsBefore[r] {
			fmt.Fprintf(&b, "temp dir %s\n", r)
		}
	}
	if _, err := os.Stat(bins); err == nil {
		fmt.Fprintf(&b, "temp dir %s\n", bins)
	}
	return b.String()
}

// poolRoots are the pool root dirs under the temp dir now.
func poolRoots() map[string]bool {
	roots, _ := filepath.Glob(filepath.Join(os.TempDir(), "oj-sandbox-root-*"))
	out := make(map[string]bool, len(roots))
	for _, r := range roots {
		out[r] = true
	}
	return out
}
