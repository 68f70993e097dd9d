package sandbox

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A run's wall limit is there to end programs that do not use their CPU time: a sleeper,
// a program blocked on a read that never returns. It is not there to measure the host.
// On a busy host a program also waits for things that are not its doing, and that time
// used to count against its wall limit, so a verdict changed with the host's load:
//
//   - waiting for a CPU while other processes ran (runnable, not running): the kernel
//     counts it per thread as run_delay (/proc/TID/schedstat);
//   - waiting for its output to be read: a program writing to a pipe that is full waits
//     until the reader (the judge, or the sandbox's own capture) takes some. A judge
//     starved of CPU read 64 MiB of an OLE program's output so slowly that the program,
//     blocked with 10 ms of CPU used, was killed at its 2.5 s wall limit: TLE.
//
// That time is the run's stall (Result.Stalled). The wall limit counts the rest: the
// time the run ran or was idle of its own accord. A sleeping program stalls nothing,
// however busy the host, and still ends in TLE at its wall limit; a program that was
// runnable all along is bounded by its CPU limit anyway. A run the host stalls for more
// than Config.MaxStall × its wall limit is given up as SE: the host is too busy to judge
// it, and the caller may try again (the judge's worker retries with backoff, a bounded
// number of times).
//
// What the meter cannot see it does not count, which errs towards TLE, as before: the
// wait of a thread that ended between two reads (threads are read every
// stallReadEvery and at each wall check), and any wait without schedstat (a kernel
// without CONFIG_SCHED_INFO).

// stallReadEvery is how often the run's threads are read while it runs, besides at each
// wall check.
const stallReadEvery = 100 * time.Millisecond

// stallMeter measures a run's stall. Its methods are called under the run's killer
// lock while the run is live (so that nothing reads the slot's cgroup once the run has
// ended), and stalled once it is over.
type stallMeter struct {
	threads func() ([]int, error)
	// pipes are descriptors of the write ends of the pipes the run's stdout and stderr
	// go to whose reader reads as fast as it can (the sandbox's captures, a caller's
	// DrainedOutput): while one is full, the program writing to it waits on its reader.
	pipes []int
	start time.Time

	mu       sync.Mutex
	waited   map[int]time.Duration // each thread's run_delay when last read
	gone     time.Duration         // run_delay of threads no longer there
	blocked  time.Duration         // time an output pipe was seen full
	lastTick time.Time
	lastRead time.Time
}

func newStallMeter(start time.Time, threads func() ([]int, error), pipes []int) *stallMeter {
	return &stallMeter{threads: threads, pipes: pipes, start: start, lastTick: start,
		waited: map[int]time.Duration{}}
}

// sample is called at every poll of the run: it counts the time since the last poll as
// blocked when an output pipe is full now, and reads the threads' waits when they are
// due (or at once, with readNow).
func (m *stallMeter) sample(now time.Time, readNow bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pipeFull() {
		m.blocked += now.Sub(m.lastTick)
	}
	m.lastTick = now
	if readNow || now.Sub(m.lastRead) >= stallReadEvery {
		m.readWaits()
		m.lastRead = now
	}
}

// pipeFull reports whether a write to one of the pipes would block now: all its buffer
// holds output its reader has not taken. A pipe whose reader has gone is not full (the
// program's next write fails).
func (m *stallMeter) pipeFull() bool {
	for _, p := range m.pipes {
		fds := []unix.PollFd{{Fd: int32(p), Events: unix.POLLOUT}}
		if n, err := unix.Poll(fds, 0); err == nil && n == 0 {
			return true
		}
	}
	return false
}

// readWaits reads run_delay of every thread of the run.
func (m *stallMeter) readWaits() {
	tids, err := m.threads()
	if err != nil {
		return
	}
	seen := make(map[int]bool, len(tids))
	for _, tid := range tids {
		d, ok := runDelayOf(tid)
		if !ok {
			continue
		}
		seen[tid] = true
		if prev, had := m.waited[tid]; had && d < prev {
			m.gone += prev // the id was reused by a new thread
		}
		m.waited[tid] = d
	}
	for tid, d := range m.waited {
		if !seen[tid] {
			m.gone += d
			delete(m.waited, tid)
		}
	}
}

// stalled is the run's stall so far, at most the time since the run started (the waits
// of several threads at once add up past it).
func (m *stallMeter) stalled(now time.Time) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.gone + m.blocked
	for _, d := range m.waited {
		s += d
	}
	return max(0, min(s, now.Sub(m.start)))
}

// runDelayOf is runDelay; tests script it.
var runDelayOf = runDelay

// runDelay reads how long thread tid has waited on a run queue (the second field of
// /proc/TID/schedstat, in nanoseconds).
func runDelay(tid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/schedstat")
	if err != nil {
		return 0, false
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, false
	}
	ns, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil || ns < 0 {
		return 0, false
	}
	return time.Duration(ns), true
}
