package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"oj/core/api"
	"oj/core/api/apitest"
	"oj/core/store"
	"oj/core/wire"
)

// draining is an API server on a real listener with one submit in flight: its handler
// has started reading the body (the server sent 100 Continue) and waits for the rest.
type draining struct {
	t      *testing.T
	a      *apitest.Env
	addr   string
	conn   net.Conn
	br     *bufio.Reader
	body   []byte
	cancel context.CancelFunc
	done   chan error
}

func startDraining(t *testing.T, serve func(ctx context.Context, srv *api.Server, ln net.Listener) error) *draining {
	t.Helper()
	a := apitest.New(t, apitest.Options{NoWorker: true})
	ln, err := api.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	d := &draining{t: t, a: a, addr: ln.Addr().String(), cancel: cancel, done: make(chan error, 1),
		body: submitBody("aplusb", "python3", "print(1)", 0)}
	go func() { d.done <- serve(ctx, a.Server, ln) }()
	if d.conn, err = net.Dial("tcp", d.addr); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.conn.Close() })
	fmt.Fprintf(d.conn, "POST /api/v1/submissions HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", d.addr, a.AdminToken, len(d.body))
	d.br = bufio.NewReader(d.conn)
	if line, err := d.br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 100 ") {
		t.Fatalf("before the body: %q %v, want 100 Continue", line, err)
	}
	if line, _ := d.br.ReadString('\n'); line != "\r\n" {
		t.Fatalf("after 100 Continue: %q", line)
	}
	return d
}

func (d *draining) get(path string) (*http.Response, []byte) {
	d.t.Helper()
	req, _ := http.NewRequest("GET", "http://"+d.addr+path, nil)
	req.Header.Set("Authorization", "Bearer "+d.a.AdminToken)
	// No connection kept alive: each request is a new one, as a client's after a restart.
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(req)
	if err != nil {
		d.t.Fatalf("GET %s while draining: %v (the listener must stay open)", path, err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = bufio.NewReader(resp.Body).WriteTo(&b)
	return resp, []byte(b.String())
}

// drainAndCheck stops the server and checks what a new request gets meanwhile.
func (d *draining) drainAndCheck() {
	t := d.t
	t.Helper()
	d.cancel()
	// The drain starts in the serving goroutine: /readyz says when.
	deadline := time.Now().Add(20 * time.Second)
	var resp *http.Response
	var body []byte
	for {
		resp, body = d.get("/readyz")
		if resp.StatusCode != http.StatusOK || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	var e wire.Error
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		json.Unmarshal(body, &e) != nil || e.Error.Code != "unavailable" || !strings.Contains(e.Error.Message, "shutting down") {
		t.Fatalf("/readyz while draining: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	resp, body = d.get("/api/v1/languages")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "5" || !resp.Close {
		t.Fatalf("a route while draining: %d Retry-After %q close %v %s", resp.StatusCode, resp.Header.Get("Retry-After"), resp.Close, body)
	}
	if resp, body = d.get("/healthz"); resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz while draining: %d %s", resp.StatusCode, body)
	}
}

// finishInFlight sends the rest of the submit in flight and checks it was stored.
func (d *draining) finishInFlight() {
	t := d.t
	t.Helper()
	if _, err := d.conn.Write(d.body); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(d.br, nil)
	if err != nil {
		t.Fatalf("the submit in flight: %v", err)
	}
	defer resp.Body.Close()
	var acc wire.Accepted
	if err := json.NewDecoder(resp.Body).Decode(&acc); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("the submit in flight: %d %+v %v", resp.StatusCode, acc, err)
	}
	if s, err := store.GetSubmission(context.Background(), d.a.DB, acc.ID); err != nil || s.State != "queued" {
		t.Fatalf("the submit in flight was not stored: %+v %v", s, err)
	}
}

func (d *draining) wantStopped() {
	t := d.t
	t.Helper()
	select {
	case err := <-d.done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not stop after its drain")
	}
	if c, err := net.Dial("tcp", d.addr); err == nil {
		c.Close()
		t.Fatal("the listener is still open after the drain")
	}
}

// `ojd api` stopped: the listener stays open while a request is in flight, a new request
// (/readyz included) gets 503 with Retry-After in the error shape, /healthz still
// answers, the request in flight completes, and then the server closes.
func TestStoppingServerAnswers503UntilItsRequestsEnded(t *testing.T) {
	t.Parallel()
	d := startDraining(t, func(ctx context.Context, srv *api.Server, ln net.Listener) error { return srv.Serve(ctx, ln) })
	d.drainAndCheck()
	d.finishInFlight()
	d.wantStopped()
}

// `ojd all` stopped: the API drains until the rest of the process stopped, even once no
// request is in flight.
func TestStoppingServerDrainsUntilTheProcessStopped(t *testing.T) {
	t.Parallel()
	others := make(chan struct{})
	d := startDraining(t, func(ctx context.Context, srv *api.Server, ln net.Listener) error {
		return srv.ServeDraining(ctx, ln, others)
	})
	d.drainAndCheck()
	d.finishInFlight()
	if resp, body := d.get("/api/v1/languages"); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("after the request in flight, before the rest stopped: %d %s", resp.StatusCode, body)
	}
	select {
	case err := <-d.done:
		t.Fatalf("the server stopped before the rest of the process: %v", err)
	default:
	}
	close(others)
	d.wantStopped()
}
