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
// time the program ran or was idle of its own accord. A sleeping program stalls
// nothing, however busy the host, and still ends in TLE at its wall limit; a program
// that was runnable all along is bounded by its CPU limit anyway. Nor does the wall
// limit count the sandbox's own work before the program starts (mounting its work dir,
// cloning it, the clone joining the run's cgroup — which waits for an RCU grace period
// and took hundreds of milliseconds on a loaded host): the wall clock starts when the
// program joined its cgroup, as closely as the meter can tell (never later).
//
// A run stalled, its set-up included, for more than Config.MaxStall × its wall limit is
// given up as SE: the host is too busy to judge it, and the caller may try again (the
// judge's worker retries with backoff, a bounded number of times).
//
// The wait a thread is in the middle of is in no run_delay yet, and was seen to last
// 300 ms on a loaded host; so the wall limit never ends a run while one of its threads
// is runnable: a program that wants a CPU is not idle, and its CPU limit (or
// max_stall) ends it. Nor a run whose threads have all exited (it ended by itself; the
// host has not heard yet). Otherwise what the meter cannot see it does not count, which
// errs towards TLE, as before: the wait of a thread that ended since the run's threads
// were last read (every stallReadEvery, and at every poll once the program has had half
// its wall limit), and any wait without schedstat (a kernel without CONFIG_SCHED_INFO).

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
	// pipe with Spec.StdoutDrained or StderrDrained): while one is full, the program
	// writing to it waits on its reader.
	pipes []int
	wall  time.Duration // the run's wall limit

	mu sync.Mutex
	// start is when the host asked the slot for the run; began, once the run's first
	// thread has been seen in its cgroup, is when it joined the cgroup, as closely as
	// the meter can tell (never later). The wall clock runs from began: before that the
	// slot was mounting the work dir and starting the program — the sandbox's work,
	// which a busy host makes slow, and which counts as stall towards max_stall only.
	start, began time.Time
	created      time.Time             // when the slot's init cloned the program, if the meter could tell
	waited       map[int]time.Duration // each thread's run_delay when last read
	gone         time.Duration         // run_delay of threads no longer there
	blocked      time.Duration         // time an output pipe was seen full
	lastTick     time.Time
	lastRead     time.Time
}

func newStallMeter(start time.Time, wall time.Duration, threads func() ([]int, error), pipes []int) *stallMeter {
	return &stallMeter{threads: threads, pipes: pipes, wall: wall, start: start, lastTick: start,
		waited: map[int]time.Duration{}}
}

// sample is called at every poll of the run: it counts the time since the last poll as
// blocked when an output pipe is full now, and reads the threads' waits when they are
// due (or at once, with readNow): every stallReadEvery, at every poll until the run's
// first thread is seen, and at every poll once the program has had half its wall limit
// (the waits of a thread that ends are lost since its last read, and near the limit
// they decide).
func (m *stallMeter) sample(now time.Time, readNow bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.began.IsZero() && m.pipeFull() {
		m.blocked += now.Sub(maxTime(m.lastTick, m.began))
	}
	late := m.elapsedLocked(now)-m.stalledLocked(now) >= m.wall/2
	if readNow || late || m.began.IsZero() || now.Sub(m.lastRead) >= stallReadEvery {
		m.readWaits(now)
		m.lastRead = now
	}
	m.lastTick = now
}

// elapsed is the program's wall time at now: 0 until the meter has seen it start.
func (m *stallMeter) elapsed(now time.Time) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.elapsedLocked(now)
}

func (m *stallMeter) elapsedLocked(now time.Time) time.Duration {
	if m.began.IsZero() {
		return 0
	}
	return max(0, now.Sub(m.began))
}

// reported is the stall Result.Stalled reports for a run that ended at end: the
// program's, and its wait to join its cgroup (Result.Wall starts when the slot's init
// cloned it).
func (m *stallMeter) reported(end time.Time) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.stalledLocked(end)
	if !m.created.IsZero() && m.began.After(m.created) {
		s += m.began.Sub(m.created)
	}
	return s
}

// setup is how long the slot took to start the program (so far, until it is seen).
func (m *stallMeter) setup(now time.Time) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.began.IsZero() {
		return now.Sub(m.start)
	}
	return m.began.Sub(m.start)
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

// readWaits reads run_delay of every thread of the run; the first time it finds one, it
// sets began.
func (m *stallMeter) readWaits(now time.Time) {
	tids, err := m.threads()
	if err != nil {
		return
	}
	if m.began.IsZero() && len(tids) > 0 {
		// It joined after the last poll, which did not see it, and after it was cloned
		// (joining can take a while on a busy host: it waits for an RCU grace period).
		m.began = maxTime(m.start, m.lastTick)
		var oldest time.Duration
		for _, tid := range tids {
			if age, ok := threadAgeOf(tid); ok {
				oldest = max(oldest, age)
			}
		}
		if oldest > 0 {
			m.created = now.Add(-oldest)
			m.began = maxTime(m.began, m.created)
		}
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

// stalled is the program's stall so far, at most its elapsed time (the waits of
// several threads at once add up past it).
func (m *stallMeter) stalled(now time.Time) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stalledLocked(now)
}

func (m *stallMeter) stalledLocked(now time.Time) time.Duration {
	s := m.gone + m.blocked
	for _, d := range m.waited {
		s += d
	}
	return max(0, min(s, m.elapsedLocked(now)))
}

// idle reports whether the run is idle now: it has a live thread and none is runnable
// (running, or waiting for a CPU). The wait a thread is in the middle of is in no
// run_delay yet, and can be long on a busy host (300 ms was seen): a program that wants
// a CPU is not idle, and the wall limit is not what ends it (its CPU limit or max_stall
// is). Nor is a run whose threads have all exited: it ended by itself, and the host has
// not heard yet.
func (m *stallMeter) idle() bool {
	tids, err := m.threads()
	if err != nil {
		return true
	}
	live := false
	for _, tid := range tids {
		switch threadStateOf(tid) {
		case 'R':
			return false
		case 0, 'Z', 'X', 'x':
		default:
			live = true
		}
	}
	return live
}

// runDelayOf, threadAgeOf and threadStateOf are runDelay, threadAge and threadState;
// tests script them.
var (
	runDelayOf    = runDelay
	threadAgeOf   = threadAge
	threadStateOf = threadState
)

// threadState reads thread tid's state letter from /proc/TID/stat (R running or
// runnable, S sleeping, D waiting for I/O, ...), or 0.
func threadState(tid int) byte {
	f, ok := statFields(tid)
	if !ok {
		return 0
	}
	return f[0][0]
}

// statFields reads /proc/TID/stat from its third field (the state) on.
func statFields(tid int) ([][]byte, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/stat")
	if err != nil {
		return nil, false
	}
	// The command name, in parentheses, may hold spaces and parentheses itself.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, false
	}
	f := bytes.Fields(b[i+1:])
	return f, len(f) > 0 && len(f[0]) > 0
}

// threadAge reads how long ago thread tid was created, from its start time in
// /proc/TID/stat (clock ticks since boot, of 10 ms: the age may be that much over).
func threadAge(tid int) (time.Duration, bool) {
	f, ok := statFields(tid) // from field 3 on: starttime, field 22, is f[19]
	if !ok || len(f) < 20 {
		return 0, false
	}
	ticks, err := strconv.ParseInt(string(f[19]), 10, 64)
	var ts unix.Timespec
	if err != nil || unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts) != nil {
		return 0, false
	}
	const clockTick = 10 * time.Millisecond // USER_HZ is 100 on every Linux port
	age := time.Duration(ts.Nano()) - time.Duration(ticks)*clockTick
	return age, age >= 0
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

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
