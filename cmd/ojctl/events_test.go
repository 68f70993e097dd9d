package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"oj/core/api/apitest"
	"oj/core/api/client"
	"oj/core/job"
	"oj/core/store"
	"oj/core/wire"
)

// restartable serves the API's handler on one address, and can be stopped (every
// connection dropped, connects refused) and started again there, as ojd api restarting.
type restartable struct {
	t       *testing.T
	handler http.Handler
	addr    string
	srv     *http.Server
	// feeds receives the since of each feed request once its answer started.
	feeds chan string
}

func (r *restartable) start() {
	r.t.Helper()
	addr := r.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	r.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/api/v1/events" {
			w = &startedWriter{ResponseWriter: w, started: func() { r.feeds <- req.URL.Query().Get("since") }}
		}
		r.handler.ServeHTTP(w, req)
	})}
	go func() { _ = r.srv.Serve(ln) }()
}

func (r *restartable) stop() { _ = r.srv.Close() }

// startedWriter calls started at its first flush: the feed's answer has begun.
type startedWriter struct {
	http.ResponseWriter
	started func()
	once    sync.Once
}

func (w *startedWriter) Flush() {
	w.ResponseWriter.(http.Flusher).Flush()
	w.once.Do(w.started)
}

// syncBuffer is a buffer written by ojctl and read by the test, which is told of each
// write.
type syncBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{}
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{wrote: make(chan struct{}, 1)} }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.b.Write(p)
	select {
	case s.wrote <- struct{}{}:
	default:
	}
	return n, err
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until cond holds of the buffer's text; the deadline only keeps a broken
// build from hanging.
func (s *syncBuffer) waitFor(t *testing.T, what string, cond func(string) bool) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for !cond(s.String()) {
		select {
		case <-s.wrote:
		case <-deadline:
			t.Fatalf("never %s; so far:\n%s", what, s.String())
		}
	}
}

// events --follow --since now outlives an API restart: a feed that drops before its
// first event resumes from where since=now started, not from a new now, so an event
// committed while the API was down is printed; connects refused meanwhile are retried
// and said on stderr; each event is printed once.
func TestEventsFollowOutlivesAnAPIRestart(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{NoWorker: true})
	api := &restartable{t: t, handler: env.Server.Handler(), feeds: make(chan string, 16)}
	api.start()
	defer func() { api.stop() }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, stderr := newSyncBuffer(), newSyncBuffer()
	vars := map[string]string{"OJCTL_SERVER": "http://" + api.addr, "OJCTL_TOKEN": env.AdminToken, "HOME": t.TempDir()}
	a := &app{stdin: strings.NewReader(""), stdout: stdout, stderr: stderr, getenv: func(k string) string { return vars[k] }}
	done := make(chan int, 1)
	go func() { done <- a.execute(ctx, []string{"events", "--follow", "--since", "now", "-o", "jsonl"}) }()
	submit := func() string {
		id, err := store.Submit(context.Background(), env.DB, store.NewSubmission{ProblemID: "aplusb", ProblemVersion: 1,
			Language: "python3", Lane: job.LaneLight, Source: "print(1)", TraceID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	feedStarted := func() string {
		t.Helper()
		select {
		case since := <-api.feeds:
			return since
		case code := <-done:
			t.Fatalf("ojctl ended (exit %d)\nstderr:\n%s", code, stderr.String())
		case <-time.After(60 * time.Second):
			t.Fatalf("no feed request\nstderr:\n%s", stderr.String())
		}
		return ""
	}
	if since := feedStarted(); since != "now" {
		t.Fatalf("first request since=%q", since)
	}
	api.stop() // before any event: ojctl has only the cursor the stream opened with
	b := submit()
	// The dropped stream, then connects refused: each said, none the end.
	stderr.waitFor(t, "retried twice", func(s string) bool { return strings.Count(s, "ojctl events:") >= 2 })
	api.start()
	if since := feedStarted(); since == "now" || since == "" {
		t.Fatalf("resumed with since=%q, want the cursor the first stream started at", since)
	}
	stdout.waitFor(t, "printed the event committed while the API was down", func(s string) bool { return strings.Contains(s, b) })
	c := submit()
	stdout.waitFor(t, "printed the event after the restart", func(s string) bool { return strings.Contains(s, c) })
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d after SIGINT\nstderr:\n%s", code, stderr.String())
	}
	wantIn(t, "stderr", stderr.String(), "reconnecting in", "connection refused")
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var ev wire.Event
		var s wire.Submission
		if err := json.Unmarshal([]byte(line), &ev); err != nil || json.Unmarshal(ev.Data, &s) != nil {
			t.Fatalf("line %q", line)
		}
		got = append(got, ev.Type+" "+s.ID)
	}
	if want := []string{wire.EventQueued + " " + b, wire.EventQueued + " " + c}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("printed %q, want %q\nstderr:\n%s", got, want, stderr.String())
	}
}

// events --follow ends, without retrying, on an answer retrying cannot change: a
// cursor the feed does not have (410, with what to do) or a bad token (401).
func TestEventsFollowStopsOnARefusal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.ojctl("events", "--follow", "--since", "99999999999-1")
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, "410", "cannot resume after 99999999999-1", "ojctl events --follow --since now")
	if strings.Contains(r.stderr, "reconnecting") {
		t.Fatalf("retried a 410:\n%s", r.stderr)
	}
	r = e.exec(run{args: []string{"events", "--follow", "-o", "jsonl"}, token: ptr("oj_nosuchtoken")})
	wantCode(t, r, 1)
	wantIn(t, "stdout", r.stdout, `"status":401`)
	if strings.Contains(r.stderr, "reconnecting") {
		t.Fatalf("retried a 401:\n%s", r.stderr)
	}
}

// events --follow retries a server starting (503) or busy (429) and goes on.
func TestEventsFollowRetriesABusyServer(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	n := 0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		switch k {
		case 1:
			http.Error(w, `{"error":{"code":"unavailable","message":"starting"}}`, http.StatusServiceUnavailable)
		case 2:
			http.Error(w, `{"error":{"code":"too_many_streams","message":"busy"}}`, http.StatusTooManyRequests)
		default:
			w.Header().Set("Content-Type", "application/x-ndjson")
			_, _ = w.Write([]byte(`{"id":"5-1","type":"submission.queued","reason":"submitted","time":"2026-01-01T00:00:00Z","data":{"id":"x"}}` + "\n"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	}))
	defer srv.Close()
	var out, errOut bytes.Buffer
	stdout := writerFunc(func(p []byte) (int, error) {
		defer cancel() // SIGINT once the event is printed
		return out.Write(p)
	})
	a := &app{stdout: stdout, stderr: &errOut, output: "json"}
	if err := a.followFeed(ctx, client.New(srv.URL, "tok"), client.FeedQuery{Follow: true}); err != nil {
		t.Fatalf("followFeed: %v", err)
	}
	if !strings.Contains(out.String(), `"5-1"`) || strings.Count(errOut.String(), "reconnecting") != 2 {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}
}

func ptr[T any](v T) *T { return &v }
