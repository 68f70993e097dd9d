package ns

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// SlotConfig describes the root filesystem of a slot, built once when it starts.
type SlotConfig struct {
	// Exe is the binary to re-execute as the init; empty means /proc/self/exe.
	Exe string
	// RootDir is an empty host directory on which the init mounts the slot's root tmpfs
	// (in its private mount namespace). It can be removed as soon as Start returns.
	RootDir string
	// ReadOnly lists host paths bound read-only at the same path inside the slot. Missing
	// paths are skipped; symlinks are recreated as symlinks.
	ReadOnly []string
	// Seccomp is the classic BPF program (struct sock_filter array) loaded before exec.
	Seccomp []byte
}

// Slot is one running sandbox init with its namespaces. A slot runs one program at a
// time; it is not safe for concurrent Run calls, nor for Close during a Run (Kill is).
//
// The host's end of the socket is a plain blocking descriptor, not a net.Conn: Run
// sends one message and sleeps in recvmsg until the init answers, woken by the kernel
// itself, instead of parking on the runtime's network poller and being handed to a
// thread again when the answer arrives.
type Slot struct {
	cmd  *exec.Cmd
	sock int
	done chan struct{}
	once sync.Once
	// mu orders Kill against Close, so that Kill never writes to a closed (and maybe
	// reused) descriptor number.
	mu     sync.Mutex
	closed bool
	// Buffers reused by Run (one run at a time).
	buf  []byte
	fds  []int
	rbuf [1024]byte
}

// Start re-executes the binary as a sandbox init in new namespaces and builds its root.
func Start(cfg SlotConfig) (*Slot, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socketpair: %w", err)
	}
	child := os.NewFile(uintptr(fds[1]), "sandbox-init")
	defer child.Close()
	exe := cfg.Exe
	if exe == "" {
		exe = "/proc/self/exe"
	}
	cmd := &exec.Cmd{
		Path:       exe,
		Args:       []string{InitArg0},
		Env:        []string{},
		ExtraFiles: []*os.File{child},
		SysProcAttr: &syscall.SysProcAttr{
			Cloneflags: unix.CLONE_NEWPID | unix.CLONE_NEWNS | unix.CLONE_NEWNET |
				unix.CLONE_NEWIPC | unix.CLONE_NEWUTS,
			Pdeathsig: syscall.SIGKILL,
		},
	}
	// Pdeathsig fires when the creating thread exits; keep it on a thread Go does not
	// retire (an unlocked thread is never terminated by the runtime).
	runtime.LockOSThread()
	err = cmd.Start()
	runtime.UnlockOSThread()
	if err != nil {
		unix.Close(fds[0])
		return nil, fmt.Errorf("start sandbox init: %w", err)
	}
	s := &Slot{cmd: cmd, sock: fds[0], done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.done) }()

	var e encoder
	e.u32(magicHello)
	e.str(cfg.RootDir)
	e.strs(cfg.ReadOnly)
	e.u32(uint32(len(cfg.Seccomp)))
	e.b = append(e.b, cfg.Seccomp...)
	if err := unix.Sendmsg(s.sock, e.b, nil, nil, unix.MSG_NOSIGNAL); err != nil {
		s.Close()
		return nil, fmt.Errorf("send hello: %w", err)
	}
	buf := make([]byte, 1024)
	// An init that hangs while building its root must not hang the host: the hello's
	// answer is waited for 30 s at most.
	helloWait := unix.NsecToTimeval((30 * time.Second).Nanoseconds())
	_ = unix.SetsockoptTimeval(s.sock, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &helloWait)
	n, err := s.recv(buf)
	_ = unix.SetsockoptTimeval(s.sock, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{})
	if err != nil || n < 8 {
		s.Close()
		return nil, fmt.Errorf("sandbox init did not start: %v", err)
	}
	if st := binary.LittleEndian.Uint32(buf); st != 0 {
		l := int(binary.LittleEndian.Uint32(buf[4:]))
		s.Close()
		return nil, fmt.Errorf("sandbox init setup: %s", buf[8:min(8+l, n)])
	}
	return s, nil
}

// Pid is the host pid of the slot's init.
func (s *Slot) Pid() int { return s.cmd.Process.Pid }

// Mount is a detached mount (from OpenTree) and where it goes inside the slot.
type Mount struct {
	Target string
	Tree   *os.File
}

// Request is one run.
type Request struct {
	Args, Env     []string
	UID, GID      uint32
	Rlimits       [numRlimits]uint64
	Stdin, Stdout *os.File
	Stderr        *os.File
	// WorkTree (a read-only detached mount, from OpenTree) and WorkUpper (a detached
	// tmpfs, from NewTmpfs) make /w an overlay of the two: the run sees WorkTree's files
	// and its writes go to WorkUpper's UpperData directory. Both nil: /w is a fresh
	// tmpfs of WorkSize.
	WorkTree, WorkUpper        *os.File
	WorkSize, TmpSize, ShmSize uint64
	Cgroup                     []*os.File // cgroup.procs files the child writes "0" to
	ReplaceExtras              bool       // unmount the previous extra mounts and mount Extras
	Extras                     []Mount
	// Sent, if set, is called once the request is on its way, the init holding its
	// own copies of every descriptor: the host may close the ends it only handed over
	// (a capture pipe's write end, so that its reader sees the end of the output as
	// soon as the run's processes and the init have closed theirs).
	Sent func()
}

// ErrSlotBroken means the init died or broke the protocol; the slot must be replaced.
var ErrSlotBroken = errors.New("sandbox slot broken")

// Run starts the request and waits for its main process to exit; every process of the
// run is dead and reaped when it returns. It is one message each way: no goroutine, no
// extra round trip. Kill, from another goroutine, ends the run early.
func (s *Slot) Run(req *Request) (Result, error) {
	var e encoder
	e.b = s.buf[:0]
	e.u32(magicRun)
	flags := uint32(0)
	fds := s.fds[:0]
	fds = append(fds, int(req.Stdin.Fd()), int(req.Stdout.Fd()), int(req.Stderr.Fd()))
	if req.WorkTree != nil {
		if req.WorkUpper == nil {
			return Result{}, errors.New("sandbox run: a work tree needs an upper tmpfs")
		}
		flags |= flagWorkTree
		fds = append(fds, int(req.WorkTree.Fd()), int(req.WorkUpper.Fd()))
	}
	for _, f := range req.Cgroup {
		fds = append(fds, int(f.Fd()))
	}
	if req.ReplaceExtras {
		flags |= flagExtras
		for _, m := range req.Extras {
			fds = append(fds, int(m.Tree.Fd()))
		}
	}
	e.u32(flags)
	e.u32(req.UID)
	e.u32(req.GID)
	for _, v := range req.Rlimits {
		e.u64(v)
	}
	e.u64(req.WorkSize)
	e.u64(req.TmpSize)
	e.u64(req.ShmSize)
	e.u32(uint32(len(req.Cgroup)))
	if req.ReplaceExtras {
		e.u32(uint32(len(req.Extras)))
		for _, m := range req.Extras {
			e.str(m.Target)
		}
	} else {
		e.u32(0)
	}
	e.strs(req.Args)
	e.strs(req.Env)
	s.buf, s.fds = e.b, fds
	err := unix.Sendmsg(s.sock, e.b, unix.UnixRights(fds...), nil, unix.MSG_NOSIGNAL)
	runtime.KeepAlive(req)
	if err != nil {
		return Result{}, fmt.Errorf("%w: send run: %v", ErrSlotBroken, err)
	}
	if req.Sent != nil {
		req.Sent()
	}
	// The init holds the only other end: if it dies, this read ends (zero bytes).
	n, err := s.recv(s.rbuf[:])
	if err != nil {
		return Result{}, fmt.Errorf("%w: read result: %v", ErrSlotBroken, err)
	}
	res, ok := decodeResult(s.rbuf[:n])
	if !ok {
		if n == 0 {
			return Result{}, fmt.Errorf("%w: init exited", ErrSlotBroken)
		}
		return Result{}, fmt.Errorf("%w: malformed result", ErrSlotBroken)
	}
	return res, nil
}

// Kill asks the init to kill every process of the current run; Run then returns its
// result. It is safe to call concurrently with Run; a Kill that arrives after the run
// ended is ignored by the init.
func (s *Slot) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	err := unix.Sendmsg(s.sock, []byte{'K'}, nil, nil, unix.MSG_NOSIGNAL)
	for err == unix.EINTR {
		err = unix.Sendmsg(s.sock, []byte{'K'}, nil, nil, unix.MSG_NOSIGNAL)
	}
	if err != nil {
		// The init is gone or stuck: end the Run waiting for it (it reads end of file).
		_ = unix.Shutdown(s.sock, unix.SHUT_RDWR)
	}
}

// recv reads one message, retrying an interrupted call.
func (s *Slot) recv(b []byte) (int, error) {
	for {
		n, _, _, _, err := unix.Recvmsg(s.sock, b, nil, 0)
		if err != unix.EINTR {
			return n, err
		}
	}
}

// Close stops the init (which kills everything in its namespaces) and waits for it.
// It is idempotent.
func (s *Slot) Close() error {
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		unix.Close(s.sock)
		s.mu.Unlock()
		select {
		case <-s.done:
		case <-time.After(2 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.done
		}
	})
	return nil
}

// OpenTree returns a detached copy of the mount tree at path (open_tree with
// OPEN_TREE_CLONE), optionally made read-only, nosuid and nodev, ready to be attached
// inside a slot by a run request. The copy is made private: a clone of a shared mount
// (every mount under systemd) is a peer of the original, so the slot's unmount of the
// copy after the run would propagate to the host and unmount the host's own mounts
// below path.
func OpenTree(path string, readOnly bool) (*os.File, error) {
	fd, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err != nil {
		return nil, fmt.Errorf("open_tree %s: %w", path, err)
	}
	attr := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV, Propagation: unix.MS_PRIVATE}
	if readOnly {
		attr.Attr_set |= unix.MOUNT_ATTR_RDONLY
	}
	if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, attr); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("mount_setattr %s: %w", path, err)
	}
	return os.NewFile(uintptr(fd), path), nil
}

// NewTmpfs returns a new tmpfs of size bytes as a detached mount (fsopen, fsmount),
// attached nowhere on the host, for a slot to mount as a work dir's upper layer. Its
// root is root's and private; the descriptor keeps the filesystem alive, so the host
// can read what a run left in it after the slot has unmounted it, and closing the last
// descriptor frees it.
func NewTmpfs(size int64) (*os.File, error) {
	fsfd, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("fsopen tmpfs: %w", err)
	}
	defer unix.Close(fsfd)
	for _, kv := range [][2]string{{"size", strconv.FormatInt(size, 10)}, {"mode", "0700"}, {"nr_inodes", "65536"}} {
		if err := unix.FsconfigSetString(fsfd, kv[0], kv[1]); err != nil {
			return nil, fmt.Errorf("fsconfig tmpfs %s: %w", kv[0], err)
		}
	}
	if err := unix.FsconfigCreate(fsfd); err != nil {
		return nil, fmt.Errorf("fsconfig tmpfs: %w", err)
	}
	mfd, err := unix.Fsmount(fsfd, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return nil, fmt.Errorf("fsmount tmpfs: %w", err)
	}
	return os.NewFile(uintptr(mfd), "work-upper"), nil
}
