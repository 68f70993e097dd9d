package judge

import (
	"bytes"
	"errors"
	"syscall"
	"testing"
)

// TestOutputSinkKeepsAndCounts writes streams around the sink's internal boundaries
// (the head kept in buf, the pooled chunks, what is kept, the limit) and checks what it
// kept and whether it calls the stream over the limit.
func TestOutputSinkKeepsAndCounts(t *testing.T) {
	const mib = 1 << 20
	cases := []struct {
		name  string
		n     int // bytes written
		keep  int
		limit int64
	}{
		{"empty", 0, 4 * mib, 4 * mib},
		{"small", 100, 4 * mib, 4 * mib},
		{"exactly the head", sinkHead, 4 * mib, 4 * mib},
		{"one byte into the chunks", sinkHead + 1, 4 * mib, 4 * mib},
		{"a chunk and a bit", sinkHead + sinkChunk + 7, 4 * mib, 4 * mib},
		{"exactly the limit", 3*mib + 5, 3*mib + 5, 3*mib + 5},
		{"one byte over the limit", 3*mib + 6, 3*mib + 5, 3*mib + 5},
		{"far over the limit", 6 * mib, 3 * mib, 3 * mib},
		{"keep below the head", 10 << 10, 4096, 64 << 10},
		{"counted past what is kept", 2 * mib, mib + 3, 4 * mib},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := make([]byte, c.n)
			for i := range data {
				data[i] = byte(i*7 + i>>13)
			}
			s, err := newOutputSink(c.keep, c.limit)
			if err != nil {
				t.Fatal(err)
			}
			// Written in odd pieces, so reads end anywhere; a write refused once the sink
			// is over the limit is what a program would see.
			for off := 0; off < len(data); {
				k, err := s.w.Write(data[off:min(len(data), off+12345)])
				if err != nil {
					if !errors.Is(err, syscall.EPIPE) {
						t.Fatal(err)
					}
					break
				}
				off += k
			}
			s.wait()
			wantOver := int64(c.n) > c.limit
			if s.over != wantOver {
				t.Fatalf("over = %v, want %v (n %d)", s.over, wantOver, s.n)
			}
			want := data[:min(c.n, c.keep)]
			if wantOver {
				want = data[:min(c.n, c.keep, sinkHead)]
			} else if s.n != int64(c.n) {
				t.Fatalf("counted %d bytes, want %d", s.n, c.n)
			}
			if !bytes.Equal(s.buf, want) {
				t.Fatalf("kept %d bytes, want the first %d written", len(s.buf), len(want))
			}
			if s.chunks != nil {
				t.Fatal("chunks not given back")
			}
		})
	}
}
