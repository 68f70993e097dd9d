package sandbox

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// residentShare is the part of path's pages in the page cache (mincore), 0 to 1.
func residentShare(t *testing.T, path string) float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	page := os.Getpagesize()
	vec := make([]byte, (len(m)+page-1)/page)
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatal(e)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return float64(n) / float64(len(vec))
}

// TestPageCacheStaysAcrossRuns: the page cache of a file a run read is charged to the
// slot's cgroup, and stays cached after the run — dropping it made every run read the
// same interpreter and library files from the disk again — while each later run still
// reports its own memory: a small run a small peak, and a run whose limit the cache
// would crowd (over a quarter of it) gets the cache dropped first and its whole limit.
func TestPageCacheStaysAcrossRuns(t *testing.T) {
	p := onePool(t)
	// Under /var/tmp like the test programs: the sandbox's own /tmp hides host paths there.
	data, err := os.MkdirTemp("/var/tmp", "oj-pagecache-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(data)
	if err := os.Chmod(data, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(data, "input")
	buf := make([]byte, 24<<20)
	rand.Read(buf)
	if err := os.WriteFile(file, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	// Out of the page cache, so that the run is the one that reads it in and is charged.
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	_ = f.Sync()
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if share := residentShare(t, file); share > 0.1 {
		t.Skipf("the host keeps the file cached (%.0f%%): cannot make a run read it in", share*100)
	}
	runWith := func(lim Limits, args ...string) Result {
		t.Helper()
		lim.CPU = 2 * time.Second
		res, err := p.Run(context.Background(), Spec{Args: args, ReadOnly: []string{bins, data}, Limits: lim})
		if err != nil || res.Status != OK {
			t.Fatalf("%v: status %s err %v", args, res.Status, err)
		}
		t.Logf("%v: cpu %v memory %d KiB", args, res.CPU, res.Memory>>10)
		return res
	}
	res := runWith(Limits{Memory: 256 * MiB}, "/bin/sh", "-c", "cat "+file+" >/dev/null")
	if res.Memory < 20*MiB {
		t.Fatalf("reading 24 MiB: memory %d KiB, want the page cache it brought in counted", res.Memory>>10)
	}
	if share := residentShare(t, file); share < 0.9 {
		t.Fatalf("after the run only %.0f%% of the file is still cached: the slot dropped its page cache", share*100)
	}
	if res := runWith(Limits{Memory: 256 * MiB}, "/bin/true"); res.Memory > 8*MiB {
		t.Fatalf("/bin/true after it: memory %d KiB, want the inherited cache left out", res.Memory>>10)
	}
	if share := residentShare(t, file); share < 0.9 {
		t.Fatalf("after a second run under a 256 MiB limit only %.0f%% of the file is still cached", share*100)
	}
	// 24 MiB of cache is over a quarter of a 64 MiB limit: it is dropped before the
	// run, which then shows all it used.
	if res := runWith(Limits{Memory: 64 * MiB}, bin("malloc"), "48"); res.Memory < 46*MiB {
		t.Fatalf("48 MiB under a 64 MiB limit after the cache: memory %d KiB, want at least 46 MiB", res.Memory>>10)
	}
	runWith(Limits{Memory: 256 * MiB}, "/bin/sh", "-c", "cat "+file+" >/dev/null")
	if res := runWith(Limits{Memory: 8 * MiB}, bin("malloc"), "4"); res.Memory > 8*MiB || res.Memory < 4*MiB {
		t.Fatalf("4 MiB under an 8 MiB limit after 24 MiB of cache: memory %d KiB", res.Memory>>10)
	}
}
