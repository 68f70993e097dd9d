package sandbox

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// stallPool is a one-slot pool of its own with the given max_stall.
func stallPool(t *testing.T, maxStall float64) *Pool {
	t.Helper()
	cfg := DefaultConfig()
	cfg.PoolSize = 1
	cfg.MaxStall = maxStall
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

// writer writes 4 MiB to stdout (four times a full pipe of the judge's size) and exits 0.
var writer = []string{"head", "-c", "4194304", "/dev/zero"}

// A program blocked on a full output pipe whose reader is slow — the judge's worker on a
// busy host — is waiting for the host, not idling: with StdoutDrained that time is its
// stall and the wall limit does not count it. A pipe to another program (no
// StdoutDrained) is the program's own business: the same wait is TLE.
func TestWallDoesNotCountWaitingForTheReader(t *testing.T) {
	t.Parallel()
	p := stallPool(t, 100) // the reader's delay is the point here, not the bound
	const wall = 400 * time.Millisecond
	for _, c := range []struct {
		name    string
		drained bool
		want    Status
	}{
		{"reader drains as fast as it can", true, OK},
		{"reader is another program", false, TLE},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			read := make(chan int64)
			go func() {
				// A reader that gets no CPU for a while once the program has started
				// writing (however long the sandbox took to start it).
				fds := []unix.PollFd{{Fd: int32(r.Fd()), Events: unix.POLLIN}}
				for {
					if n, err := unix.Poll(fds, -1); n > 0 || err != unix.EINTR {
						break
					}
				}
				time.Sleep(2 * wall)
				n, _ := io.Copy(io.Discard, r)
				read <- n
			}()
			res, err := p.Run(context.Background(), Spec{Args: writer, StdoutFile: w, StdoutDrained: c.drained,
				OnStart: func() { w.Close() }, Limits: Limits{CPU: 2 * time.Second, Wall: wall}})
			w.Close()
			n := <-read
			t.Logf("status %s wall %v stalled %v cpu %v err %v; %d bytes read", res.Status, res.Wall, res.Stalled, res.CPU, err, n)
			if res.Status != c.want {
				t.Fatalf("status %s (%s), want %s", res.Status, res.Error, c.want)
			}
			if c.want == OK && (n != 4<<20 || res.Stalled <= 0) {
				t.Fatalf("read %d bytes, stalled %v: want all 4 MiB, and the wait counted as stalled", n, res.Stalled)
			}
		})
	}
}

// A run held up by its reader longer than max_stall × its wall limit is given up as SE:
// the host is too busy to judge it, which is no verdict on the program.
func TestStallOverTheBoundIsSE(t *testing.T) {
	t.Parallel()
	p := stallPool(t, 0.5)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close() // open, never read while the run lasts: the pipe stays full
	res, err := p.Run(context.Background(), Spec{Args: writer, StdoutFile: w, StdoutDrained: true,
		OnStart: func() { w.Close() }, Limits: Limits{CPU: 2 * time.Second, Wall: 400 * time.Millisecond}})
	w.Close()
	t.Logf("status %s wall %v stalled %v err %v", res.Status, res.Wall, res.Stalled, err)
	if res.Status != SE || err == nil || !strings.Contains(res.Error, "max_stall") || !res.HostBusy {
		t.Fatalf("status %s err %v (%s) host busy %v, want SE naming sandbox.max_stall, marked HostBusy", res.Status, err,
			res.Error, res.HostBusy)
	}
}

// A program that gets a quarter of a CPU (three busy loops share its CPU with it)
// needs four times its CPU time of real time; the time it waited for the CPU is its
// stall, and it finishes within its wall limit.
func TestWallDoesNotCountWaitingForACPU(t *testing.T) {
	p := stallPool(t, 100)
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		t.Fatal(err)
	}
	cpu := 0
	for !all.IsSet(cpu) {
		cpu++
	}
	var one unix.CPUSet
	one.Set(cpu)
	// The slot's init forks every run of the slot: they inherit its CPU.
	if err := unix.SchedSetaffinity(p.slots[0].ns.Pid(), &one); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		hog := exec.Command("sh", "-c", "while :; do :; done")
		if err := hog.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { hog.Process.Kill(); hog.Wait() })
		if err := unix.SchedSetaffinity(hog.Process.Pid, &one); err != nil {
			t.Fatal(err)
		}
	}
	res := run0(t, p, Spec{Args: []string{bin("burn"), "200"}, Limits: Limits{CPU: 3 * time.Second, Wall: 500 * time.Millisecond}})
	if res.Status != OK || res.Stalled <= 0 {
		t.Fatalf("status %s (%s), stalled %v: want OK, the wait for the CPU counted as stalled", res.Status, res.Error, res.Stalled)
	}
}

// run0 is run on pool p.
func run0(t *testing.T, p *Pool, spec Spec) Result {
	t.Helper()
	spec.ReadOnly = append(spec.ReadOnly, bins)
	res, err := p.Run(context.Background(), spec)
	t.Logf("%v: status %s exit %d signal %d cpu %v wall %v stalled %v err %q (%v)",
		spec.Args, res.Status, res.ExitCode, res.Signal, res.CPU, res.Wall, res.Stalled, res.Error, err)
	return res
}

// The meter keeps the waits of threads that ended (or whose id a new thread took) and
// never counts more stall than time passed.
func TestStallMeterKeepsEndedThreads(t *testing.T) {
	ms := time.Millisecond
	var tids []int
	delays := map[int]time.Duration{}
	defer func(f, g func(int) (time.Duration, bool)) { runDelayOf, threadAgeOf = f, g }(runDelayOf, threadAgeOf)
	runDelayOf = func(tid int) (time.Duration, bool) { d, ok := delays[tid]; return d, ok }
	threadAgeOf = func(int) (time.Duration, bool) { return time.Hour, true }
	start := time.Unix(1000, 0)
	m := newStallMeter(start, time.Hour, func() ([]int, error) { return tids, nil }, nil)
	step := func(at time.Duration, live []int, d map[int]time.Duration, want time.Duration) {
		t.Helper()
		tids, delays = live, d
		m.sample(start.Add(at), true)
		if got := m.stalled(start.Add(at)); got != want {
			t.Fatalf("at %v: stalled %v, want %v", at, got, want)
		}
	}
	step(100*ms, []int{7, 8}, map[int]time.Duration{7: 10 * ms, 8: 20 * ms}, 30*ms)
	step(200*ms, []int{8}, map[int]time.Duration{8: 25 * ms}, 35*ms)                   // 7 ended at 10 ms
	step(300*ms, []int{8, 7}, map[int]time.Duration{8: 25 * ms, 7: 5 * ms}, 40*ms)     // a new thread 7
	step(400*ms, []int{8, 7}, map[int]time.Duration{8: 5 * ms, 7: 6 * ms}, 46*ms)      // 8 reused: its 25 ms kept
	step(450*ms, []int{8, 9}, map[int]time.Duration{8: 300 * ms, 9: 300 * ms}, 450*ms) // never past the time passed
	if got := m.stalled(start.Add(10 * time.Second)); got != 10*ms+25*ms+6*ms+300*ms+300*ms {
		t.Fatalf("stalled %v later", got)
	}
}

// The wall clock starts when the program joined its cgroup, as closely as the meter can
// tell: after the last poll that did not see it, and after it was created.
func TestStallMeterStartsAtTheProgram(t *testing.T) {
	ms := time.Millisecond
	var tids []int
	ages := map[int]time.Duration{}
	defer func(f, g func(int) (time.Duration, bool)) { runDelayOf, threadAgeOf = f, g }(runDelayOf, threadAgeOf)
	runDelayOf = func(int) (time.Duration, bool) { return 0, true }
	threadAgeOf = func(tid int) (time.Duration, bool) { a, ok := ages[tid]; return a, ok }
	start := time.Unix(1000, 0)
	m := newStallMeter(start, time.Hour, func() ([]int, error) { return tids, nil }, nil)
	m.sample(start.Add(40*ms), false) // the slot is still mounting the work dir
	if got, setup := m.elapsed(start.Add(40*ms)), m.setup(start.Add(40*ms)); got != 0 || setup != 40*ms {
		t.Fatalf("elapsed %v, setup %v before the program was seen, want 0 and 40ms", got, setup)
	}
	// A late poll: the program was created at 220 ms (its thread at 240 ms), after the
	// last poll.
	tids, ages = []int{42, 43}, map[int]time.Duration{42: 30 * ms, 43: 10 * ms}
	m.sample(start.Add(250*ms), false)
	if got, setup := m.elapsed(start.Add(300*ms)), m.setup(start.Add(300*ms)); got != 80*ms || setup != 220*ms {
		t.Fatalf("elapsed %v, setup %v, want 80ms and 220ms: from the program's creation", got, setup)
	}

	// Created long ago, but still not in the cgroup at the last poll (joining it waited).
	ages = map[int]time.Duration{7: time.Second}
	m = newStallMeter(start, time.Hour, func() ([]int, error) { return tids, nil }, nil)
	tids = nil
	m.sample(start.Add(40*ms), false)
	tids = []int{7}
	m.sample(start.Add(60*ms), false)
	if got := m.elapsed(start.Add(100 * ms)); got != 60*ms {
		t.Fatalf("elapsed %v, want 60ms: from the last poll that had not seen it", got)
	}
}

// threadAge reads a real thread's age: this one's is under the process's.
func TestThreadAge(t *testing.T) {
	age, ok := threadAge(unix.Gettid())
	if !ok || age < 0 || age > time.Hour {
		t.Fatalf("age %v %v", age, ok)
	}
}

// The wall limit ends only an idle run: one with a live thread, none runnable.
func TestStallMeterIdle(t *testing.T) {
	states := map[int]byte{}
	var tids []int
	defer func(f func(int) byte) { threadStateOf = f }(threadStateOf)
	threadStateOf = func(tid int) byte { return states[tid] }
	m := newStallMeter(time.Now(), time.Second, func() ([]int, error) { return tids, nil }, nil)
	for _, c := range []struct {
		name   string
		tids   []int
		states map[int]byte
		idle   bool
	}{
		{"sleeping", []int{1, 2}, map[int]byte{1: 'S', 2: 'D'}, true},
		{"one thread runnable", []int{1, 2}, map[int]byte{1: 'S', 2: 'R'}, false},
		{"exited, not yet reaped", []int{1}, map[int]byte{1: 'Z'}, false},
		{"gone", []int{1}, map[int]byte{}, false},
		{"no thread left", nil, nil, false},
	} {
		tids, states = c.tids, c.states
		if got := m.idle(); got != c.idle {
			t.Errorf("%s: idle %v, want %v", c.name, got, c.idle)
		}
	}
}
