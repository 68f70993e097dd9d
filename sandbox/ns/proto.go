package ns

import (
	"encoding/binary"
	"time"
)

// Wire protocol between the host and a slot's init, over a SOCK_SEQPACKET socket pair
// (one message per datagram, file descriptors as SCM_RIGHTS). All integers are
// little-endian; strings are a u32 length followed by the bytes and a NUL.
//
//	hello  host→init: magic, root dir, u32 n + n bind paths, u32 len + seccomp BPF
//	ready  init→host: u32 status (0 ok), u32 len + error text
//	run    host→init: magic, flags, uid, gid, 5×u64 rlimits, u64 work tmpfs size,
//	       u64 /tmp size, u64 /dev/shm size, u32 ncgroup, u32 nextra + extra targets,
//	       argv, env; fds: stdin, stdout, stderr, [work tree, work upper tmpfs],
//	       cgroup.procs…, [extra trees…]
//	kill   host→init: the single byte 'K' (kill every process of the run)
//	result init→host: see Result
const (
	magicHello  = 0x314a4f48
	magicRun    = 0x314a4f52
	magicResult = 0x314a4f53

	flagWorkTree = 1
	flagExtras   = 2
)

// UpperData is the directory of a work dir's upper tmpfs (Request.WorkUpper) that holds
// what the run wrote in /w (overlayfs's upper dir: new and changed files, and whiteouts
// — character devices 0:0 — for removed ones). init.h's OJ_UPPER_DATA.
const UpperData = "data"

// The rlimit slots of a run request, in wire order. 0 leaves a limit unchanged
// (except core, where 0 means no core dumps); RlimitInfinity removes it.
const (
	RlimitStack = iota
	RlimitFsize
	RlimitNofile
	RlimitCPU
	RlimitCore
	numRlimits
)

// RlimitInfinity is RLIM_INFINITY on the wire.
const RlimitInfinity = ^uint64(0)

type encoder struct{ b []byte }

func (e *encoder) u32(v uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *encoder) u64(v uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *encoder) str(s string) {
	e.u32(uint32(len(s) + 1))
	e.b = append(e.b, s...)
	e.b = append(e.b, 0)
}
func (e *encoder) strs(ss []string) {
	e.u32(uint32(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}

// resultSize is offsetof(struct resp, msg) in init_linux.c.
const resultSize = 4*4 + 4*8 + 4

// Result is what the init reports about one run.
type Result struct {
	// SetupError is set when the run never started the user's program (or the per-run
	// setup around it failed); it names the step, e.g. "execve: No such file or directory".
	SetupError string
	// Status is the wait status of the run's main process.
	Status uint32
	// Wall is the time from clone to the main process's exit, measured in the init.
	Wall time.Duration
	// UserCPU and SysCPU come from wait4 (the main process and its reaped children only;
	// the cgroup's figure is the authoritative one).
	UserCPU, SysCPU time.Duration
	// MaxRSSKB is wait4's ru_maxrss.
	MaxRSSKB int64
}

func decodeResult(b []byte) (Result, bool) {
	if len(b) < resultSize || binary.LittleEndian.Uint32(b) != magicResult {
		return Result{}, false
	}
	le := binary.LittleEndian
	r := Result{
		Status:   le.Uint32(b[8:]),
		Wall:     time.Duration(int64(le.Uint64(b[16:]))),
		UserCPU:  time.Duration(int64(le.Uint64(b[24:]))),
		SysCPU:   time.Duration(int64(le.Uint64(b[32:]))),
		MaxRSSKB: int64(le.Uint64(b[40:])),
	}
	n := int(le.Uint32(b[48:]))
	if le.Uint32(b[4:]) != 0 {
		if resultSize+n > len(b) {
			n = len(b) - resultSize
		}
		r.SetupError = string(b[resultSize : resultSize+n])
		if r.SetupError == "" {
			r.SetupError = "setup failed"
		}
	}
	return r, true
}
