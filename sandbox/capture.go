package sandbox

import (
	"io"
	"sync"
	"sync/atomic"
)

// drainBufs are the read buffers of captures, reused across runs.
var drainBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// capture keeps the first max bytes of a stream and counts all of it; when the count
// passes limit it calls over once (the run is then killed for OLE).
type capture struct {
	buf   []byte
	max   int
	limit int64
	n     atomic.Int64
	over  func()
	fired bool
}

func (c *capture) drain(r io.Reader) {
	bp := drainBufs.Get().(*[]byte)
	defer drainBufs.Put(bp)
	b := *bp
	for {
		k, err := r.Read(b)
		if k > 0 {
			if room := c.max - len(c.buf); room > 0 {
				c.buf = append(c.buf, b[:min(k, room)]...)
			}
			if c.n.Add(int64(k)) > c.limit && !c.fired {
				c.fired = true
				c.over()
			}
		}
		if err != nil {
			return
		}
	}
}
