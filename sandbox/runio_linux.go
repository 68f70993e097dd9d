package sandbox

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"oj/sandbox/ns"
)

// pipeAtomic is the most standard input written to a pipe before the program starts:
// a pipe always holds at least one page, however the system limits pipe buffers.
const pipeAtomic = 4096

// stdin sets the program's standard input: the caller's file, a file opened by path,
// a pipe fed from spec.Stdin, or /dev/null.
func (r *runState) stdin() error {
	spec := r.spec
	switch {
	case spec.StdinFile != nil:
		r.req.Stdin = spec.StdinFile
	case spec.StdinPath != "":
		f, err := os.Open(spec.StdinPath)
		if err != nil {
			return fmt.Errorf("sandbox: stdin: %w", err)
		}
		r.closers = append(r.closers, f)
		r.req.Stdin = f
	case spec.Stdin != nil:
		pr, w, err := os.Pipe()
		if err != nil {
			return fmt.Errorf("sandbox: stdin pipe: %w", err)
		}
		r.handed = append(r.handed, pr)
		r.closers = append(r.closers, w)
		r.req.Stdin = pr
		if l, ok := spec.Stdin.(interface{ Len() int }); ok && l.Len() <= pipeAtomic {
			// Fits in the pipe's buffer whatever its size: written now, no goroutine.
			_, _ = io.Copy(w, spec.Stdin)
			w.Close()
			return nil
		}
		r.stdinCopy = make(chan struct{})
		go func() {
			defer close(r.stdinCopy)
			_, _ = io.Copy(w, spec.Stdin)
			w.Close()
		}()
	default:
		r.req.Stdin = r.p.devnull
	}
	return nil
}

// outputs sets the program's standard output and error.
func (r *runState) outputs() error {
	var err error
	if r.req.Stdout, r.outCap, r.outFile, err = r.output(r.spec.StdoutFile, r.spec.StdoutDrained, r.spec.StdoutPath, r.spec.StdoutCap, "stdout"); err != nil {
		return err
	}
	r.req.Stderr, r.errCap, r.errFile, err = r.output(r.spec.StderrFile, r.spec.StderrDrained, r.spec.StderrPath, r.spec.StderrCap, "stderr")
	return err
}

// output returns what the program writes to (the caller's file, a file created at
// path, or a pipe captured up to capBytes and counted against Limits.Output, whose
// overflow kills the run for OLE), the capture if any, and the file if not. drained
// says the caller reads file as fast as it can (see Spec.StdoutDrained).
func (r *runState) output(file *os.File, drained bool, path string, capBytes int, name string) (*os.File, *capture, *os.File, error) {
	switch {
	case file != nil:
		if drained {
			r.watchPipe(file)
		}
		return file, nil, file, nil
	case path != "":
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o644)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("sandbox: %s: %w", name, err)
		}
		r.closers = append(r.closers, f)
		return f, nil, f, nil
	}
	pr, w, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("sandbox: %s pipe: %w", name, err)
	}
	r.handed = append(r.handed, w)
	r.readEnds = append(r.readEnds, pr)
	r.watchPipe(w) // the capture below reads it as fast as it can
	if capBytes <= 0 {
		capBytes = r.p.cfg.CaptureBytes
	}
	lim := r.lim.Output
	c := &capture{max: capBytes, limit: lim, over: func() {
		r.kill.killFor(OLE, fmt.Sprintf("%s over %d bytes", name, lim))
	}}
	r.captures.Go(func() { c.drain(pr) })
	return w, c, nil, nil
}

// workDir mounts spec.Dir read-only under a fresh tmpfs for the run's writes.
func (r *runState) workDir() error {
	if r.spec.Dir == "" {
		return nil
	}
	t, err := ns.OpenTree(r.spec.Dir, true)
	if err != nil {
		return fmt.Errorf("sandbox: work dir: %w", err)
	}
	r.closers = append(r.closers, t)
	if r.upper, err = ns.NewTmpfs(r.p.cfg.WorkDirBytes); err != nil {
		return fmt.Errorf("sandbox: work dir: %w", err)
	}
	r.req.WorkTree, r.req.WorkUpper = t, r.upper
	return nil
}

// readOnly mounts the extra read-only paths, unless the slot has exactly these already.
func (r *runState) readOnly() error {
	r.extras = r.p.extras(r.spec.ReadOnly)
	if slices.Equal(r.extras, r.s.extras) {
		return nil
	}
	r.req.ReplaceExtras = true
	for _, e := range r.extras {
		t, err := ns.OpenTree(e, true)
		if err != nil {
			return fmt.Errorf("sandbox: read-only path: %w", err)
		}
		r.closers = append(r.closers, t)
		r.req.Extras = append(r.req.Extras, ns.Mount{Target: e, Tree: t})
	}
	return nil
}

// closeHanded closes the host's copies of the pipe ends only the run uses, once the
// init has its own: the capture readers then see the end of the output when the run
// ends, while the host is still reading the init's answer.
func (r *runState) closeHanded() {
	for _, c := range r.handed {
		c.Close()
	}
	r.handed = nil
}

// watchPipe lets the stall meter see when f, the write end of a pipe whose reader reads
// as fast as it can, is full (the program then waits on its reader). It keeps a
// duplicate of the descriptor: f may be closed by its owner as soon as the run has it.
// Anything but a pipe is not watched (a file never makes its writer wait on a reader).
func (r *runState) watchPipe(f *os.File) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		var st unix.Stat_t
		if unix.Fstat(int(fd), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
			return
		}
		if d, err := unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0); err == nil {
			r.watched = append(r.watched, d)
		}
	})
}

// closeWatched closes the watched pipes' duplicates: a capture reader sees the end of
// its output only once every write end is closed.
func (r *runState) closeWatched() {
	for _, fd := range r.watched {
		unix.Close(fd)
	}
	r.watched = nil
}

// closeStreams is called once every process of the run is dead: output file sizes are
// taken, our copies of the pipes' write ends go (if they are still open) so that the
// capture readers see EOF, and the readers and the stdin feeder are waited for.
func (r *runState) closeStreams() {
	r.closeWatched()
	r.closeHanded()
	if r.outFile != nil {
		r.outSize = fileSize(r.outFile)
	}
	if r.errFile != nil {
		r.errSize = fileSize(r.errFile)
	}
	for _, c := range r.closers {
		c.Close()
	}
	r.closers = nil
	r.captures.Wait()
	for _, c := range r.readEnds {
		c.Close()
	}
	r.readEnds = nil
	if r.stdinCopy != nil {
		<-r.stdinCopy
	}
}

func fileSize(f *os.File) int64 {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	return st.Size()
}

// extras returns the requested read-only paths that are not already visible, sorted.
func (p *Pool) extras(paths []string) []string {
	var out []string
	for _, e := range paths {
		covered := false
		for _, b := range p.binds {
			if e == b || strings.HasPrefix(e, b+"/") {
				covered = true
				break
			}
		}
		if !covered && !slices.Contains(out, e) {
			if _, err := os.Lstat(e); err == nil {
				out = append(out, filepath.Clean(e))
			}
		}
	}
	slices.Sort(out)
	return out
}
