package judge

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"runtime"
	"syscall"
)

// runOnHost runs one of the builds the worker does outside the sandbox at start
// (precompiled headers, warm build caches) and returns its combined output. The build
// gets a PID namespace of its own and dies with the worker's thread that started it
// (Pdeathsig): when the worker dies, even by SIGKILL, the kernel kills the compiler and
// every process it started, as for a namespace whose init is gone, instead of leaving
// them writing into the work dir of the next worker (or of make distclean). Its own
// process group keeps a terminal's Ctrl-C, meant for the worker, from cutting it short:
// the worker's shutdown cancels ctx. A worker that may not create PID namespaces (not
// root) runs the build without one.
func runOnHost(ctx context.Context, dir string, env []string, argv []string) ([]byte, error) {
	out, err := startOnHost(ctx, dir, env, argv, syscall.CLONE_NEWPID)
	if errors.Is(err, syscall.EPERM) {
		out, err = startOnHost(ctx, dir, env, argv, 0)
	}
	return out, err
}

func startOnHost(ctx context.Context, dir string, env []string, argv []string, clone uintptr) ([]byte, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: clone, Pdeathsig: syscall.SIGKILL, Setpgid: true}
	// Pdeathsig fires when the creating thread exits; keep it on a thread Go does not
	// retire (an unlocked thread is never terminated by the runtime).
	runtime.LockOSThread()
	err := cmd.Start()
	runtime.UnlockOSThread()
	if err != nil {
		return nil, err
	}
	err = cmd.Wait()
	return out.Bytes(), err
}
