package api

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Config keys that bound request bodies, named by the 413s they cause.
const (
	keyMaxSource  = "api.limits.max_source_bytes"
	keyMaxProblem = "api.limits.max_problem_bytes"
)

// bodyLimit is how much a route's request body may hold (413 beyond), and what the 413
// says: what is too large, the limit that applies and the config key that sets it. A
// submit's body may hold more than its limit, the source's, because JSON escapes a byte
// into up to six. The zero bodyLimit is a route that takes no body.
type bodyLimit struct {
	max   int64  // bytes the body may hold
	what  string // what is too large: "source", "package", "request body"
	limit int64  // the limit the 413 names
	key   string // its config key; "" for a fixed limit
}

// tooLarge is the 413 for a body over the limit.
func (b bodyLimit) tooLarge() *apiError {
	key := b.key
	if key == "" {
		key = "a fixed limit"
	}
	return tooLargeError(b.what, b.limit, key)
}

func tooLargeError(what string, limit int64, key string) *apiError {
	return errorf(http.StatusRequestEntityTooLarge, codeTooLarge, "%s is over the limit of %d bytes (%s)", what, limit, key)
}

// body declares the route's request body and its limit.
func (in routeInput) body(b bodyLimit) routeInput {
	in.bodyLimit = b
	return in
}

// limitBody bounds the request's body by the route's limit (handlers read r.Body, and a
// read past the limit fails with *http.MaxBytesError: bodyTooLarge turns it into the
// route's 413), and refuses at once a body whose Content-Length is over it, before
// anything of it is read or buffered.
func limitBody(w http.ResponseWriter, r *http.Request, b bodyLimit) error {
	if b.max <= 0 {
		return nil
	}
	if r.ContentLength > b.max {
		return b.tooLarge()
	}
	r.Body = http.MaxBytesReader(w, r.Body, b.max)
	return nil
}

// bodyTooLarge is the route's 413 when err is a read past its body limit.
func bodyTooLarge(r *http.Request, err error) (*apiError, bool) {
	var mbe *http.MaxBytesError
	if !errors.As(err, &mbe) {
		return nil, false
	}
	if info := infoFrom(r.Context()); info != nil && info.body.max > 0 {
		return info.body.tooLarge(), true
	}
	return tooLargeError("request body", mbe.Limit, "a fixed limit"), true
}

// Lingering. A client that sends its whole request before it reads the answer (Python's
// http.client and requests, most scripts) never reads an answer given while its body is
// still coming if the server then closes: the server's kernel answers the bytes still
// arriving with a reset, the client's write fails (BrokenPipeError) and its kernel drops
// the answer it had received. net/http reads and discards at most 256 KiB of a body the
// handler left (and nothing once a MaxBytesReader tripped), then closes. So before an
// answer starts (lingerer.drain, from the middleware's statusWriter), the server reads
// and discards the rest of the body itself, as nginx's lingering close does, within
// bounds:
//
//   - bytes: up to the route's body limit plus lingerBytes (64 MiB) in all. A body up to
//     64 MiB past its limit is read to its end: a 20 MiB source, a 50 MiB admin body, a
//     package sent whole past api.limits.max_problem_bytes; each byte is discarded as it
//     comes, so it costs bandwidth, not memory. A client that sends more is cut off.
//   - time: lingerIdle (5 s, nginx's lingering_timeout) without a byte ends it — the
//     client has stopped sending — and so does the request's own read deadline,
//     api.read_timeout from its start (30 s, nginx's lingering_time), as for any body.
//
// Past a bound the answer is still written and the connection closed as net/http does
// (it may then be lost to such a client). A client that sent Expect: 100-continue and
// was not told to continue has sent no body, and none is read.
const (
	lingerBytes = 64 << 20
	lingerIdle  = 5 * time.Second
)

// lingerBounds are the drain's bounds (the constants above; tests narrow them).
type lingerBounds struct {
	bytes int64         // past the route's body limit
	idle  time.Duration // without a byte
	total time.Duration // from the request's start: api.read_timeout
}

// trackedBody is the request body as the handler reads it: how much it read, and
// whether it reached the end.
type trackedBody struct {
	rc   io.ReadCloser
	n    int64
	read bool // a Read was made (which sends 100 Continue to a client that waits for it)
	eof  bool
}

func (b *trackedBody) Read(p []byte) (int, error) {
	b.read = true
	n, err := b.rc.Read(p)
	b.n += int64(n)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

func (b *trackedBody) Close() error { return b.rc.Close() }

// lingerer drains one request's body before its answer starts.
type lingerer struct {
	bounds lingerBounds
	r      *http.Request
	body   *trackedBody
	start  time.Time
	done   bool
}

// drain reads and discards what is left of the body, within the bounds, and records it
// for the request log. It runs once, before the answer's header is written.
func (l *lingerer) drain(w http.ResponseWriter) {
	if l.done {
		return
	}
	l.done = true
	b := l.body
	if b == nil || b.eof || l.r.ContentLength == 0 {
		return
	}
	if !b.read && strings.EqualFold(l.r.Header.Get("Expect"), "100-continue") {
		return
	}
	info := infoFrom(l.r.Context())
	budget := info.body.max + l.bounds.bytes - b.n
	end := l.start.Add(l.bounds.total)
	rc := http.NewResponseController(w)
	buf := make([]byte, 32<<10)
	before := b.n
	var err error
	for budget > 0 && err == nil {
		now := time.Now()
		if !now.Before(end) {
			err = fmt.Errorf("over api.read_timeout (%s)", l.bounds.total)
			break
		}
		deadline := now.Add(l.bounds.idle)
		if end.Before(deadline) {
			deadline = end
		}
		if err = rc.SetReadDeadline(deadline); err != nil {
			break // not HTTP/1: net/http's own rules apply
		}
		var n int
		n, err = b.Read(buf[:min(int64(len(buf)), budget)])
		budget -= int64(n)
	}
	switch {
	case b.eof:
		_ = rc.SetReadDeadline(time.Time{})
	case err == nil:
		err = fmt.Errorf("over %d bytes past the body limit", l.bounds.bytes)
	}
	info.discarded = b.n - before
	if !b.eof {
		info.lingerCut = err
	}
}
