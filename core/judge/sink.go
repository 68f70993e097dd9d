package judge

import (
	"fmt"
	"os"
	"slices"
	"sync"
)

// outputSink receives one output stream of a run through a pipe, so that what a
// program writes costs neither disk (as files in the work dir did, slowly whenever the
// disk was busy) nor the run's memory (as files on a tmpfs would: pages are charged to
// the cgroup of the process that writes them, so a flood of output would become MLE
// before OLE, and stay charged to the sandbox slot after the run). The worker reads
// the pipe and keeps the first keep bytes in its own memory — at most the output limit
// per stream of a run in flight. It counts everything; once more than limit bytes have
// come, the output is over the limit (OLE, exact: limit bytes are fine, one more is
// not) and the sink closes its end, so the program's next write fails (EPIPE, or
// SIGPIPE) and the run ends at once instead of writing on until its time runs out.
//
// A program that writes faster than the worker reads waits for the worker, blocked on
// the full pipe. The sandbox does not count that time against its wall limit (the
// runs' Spec.StdoutDrained), but the run holds a slot meanwhile, so reading costs as
// little as it can: past the first sinkHead bytes, output is read in pooled chunks of
// sinkChunk bytes (a full pipe in one read) and joined once, after the run, instead of
// into one buffer regrown and copied on the way up to the output limit. That regrowth
// (to 64 MiB in 14 doublings, each a fresh allocation) made draining an output flood
// take up to 4 s on a loaded 2-core host, where a plain read loop took 0.1–0.4 s, and
// OLE programs ran out of wall time while blocked on the pipe (TLE).
type outputSink struct {
	w     *os.File // the write end, handed to the run; closed by wait
	r     *os.File
	keep  int
	limit int64
	// buf is what was kept, once wait has returned: the output's first keep bytes — or,
	// when over is set (the checker will not see it), only its first sinkHead bytes,
	// for the excerpts.
	buf    []byte
	chunks [][]byte // kept after buf while draining, each from sinkChunks
	kept   int      // bytes in buf and chunks
	n      int64
	over   bool
	done   chan struct{}
}

// sinkPipeBytes is the pipe buffer a sink asks for (the kernel's default is 64 KiB): a
// program writing its output at full speed then hands the worker large chunks and waits
// for it far less often. The buffer's pages exist only while they hold unread output.
const sinkPipeBytes = 1 << 20

// sinkHead is how much of a stream is kept in buf, grown as it comes (most outputs are
// small); sinkChunk is the size of the pooled chunks past it, and of the reads of what
// is counted but not kept: one full pipe.
const (
	sinkHead  = 64 << 10
	sinkChunk = sinkPipeBytes
)

// sinkChunks are the chunks output past sinkHead is read into, reused from run to run.
var sinkChunks = sync.Pool{New: func() any { b := make([]byte, sinkChunk); return &b }}

func newOutputSink(keep int, limit int64) (*outputSink, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("output pipe: %w", err)
	}
	growPipe(w, sinkPipeBytes)
	s := &outputSink{w: w, r: r, keep: keep, limit: limit, done: make(chan struct{})}
	go s.drain()
	return s, nil
}

func (s *outputSink) drain() {
	defer close(s.done)
	defer s.r.Close()
	defer s.join()
	var scratch *[]byte
	defer func() {
		if scratch != nil {
			sinkChunks.Put(scratch)
		}
	}()
	for {
		var dst []byte
		switch head := min(s.keep, sinkHead); {
		case s.kept < head:
			// Read straight into buf, growing it as output comes (an allocation may be
			// larger than asked: buf stops at head all the same).
			if len(s.buf) == cap(s.buf) {
				s.buf = slices.Grow(s.buf, min(max(4<<10, 2*cap(s.buf)), head)-len(s.buf))
			}
			dst = s.buf[len(s.buf):min(cap(s.buf), head)]
		case s.kept < s.keep:
			if len(s.chunks) == 0 || len(s.chunks[len(s.chunks)-1]) == sinkChunk {
				s.chunks = append(s.chunks, (*sinkChunks.Get().(*[]byte))[:0])
			}
			last := s.chunks[len(s.chunks)-1]
			dst = last[len(last):min(sinkChunk, len(last)+s.keep-s.kept)]
		default:
			if scratch == nil {
				scratch = sinkChunks.Get().(*[]byte)
			}
			dst = *scratch
		}
		k, err := s.r.Read(dst)
		switch {
		case s.kept < min(s.keep, sinkHead):
			s.buf = s.buf[:len(s.buf)+k]
			s.kept += k
		case s.kept < s.keep:
			last := &s.chunks[len(s.chunks)-1]
			*last = (*last)[:len(*last)+k]
			s.kept += k
		}
		s.n += int64(k)
		if s.n > s.limit {
			s.over = true
			return
		}
		if err != nil {
			return
		}
	}
}

// join makes buf what was kept (or only its start, when over) and gives the chunks
// back. It runs once the run's output has ended, off the program's clock.
func (s *outputSink) join() {
	if len(s.chunks) == 0 {
		return
	}
	if !s.over {
		all := make([]byte, 0, s.kept)
		all = append(all, s.buf...)
		for _, c := range s.chunks {
			all = append(all, c...)
		}
		s.buf = all
	}
	for _, c := range s.chunks {
		c = c[:sinkChunk]
		sinkChunks.Put(&c)
	}
	s.chunks = nil
}

// wait closes the worker's copy of the write end and waits for the run's copies to go
// (the sandbox has killed every process of the run when Run returns): then buf, n and
// over are final. It may be called more than once.
func (s *outputSink) wait() {
	s.w.Close()
	<-s.done
}
