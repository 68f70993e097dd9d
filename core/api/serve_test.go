package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"oj/core/api"
	"oj/core/judge/lang"
	"oj/core/testenv"
)

// records is a slog handler that keeps every record it is given, at every level.
type records struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (h *records) Enabled(context.Context, slog.Level) bool { return true }
func (h *records) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *records) WithGroup(string) slog.Handler            { return h }
func (h *records) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.recs = append(h.recs, r.Clone())
	h.mu.Unlock()
	return nil
}

// find returns the records whose message is msg.
func (h *records) find(msg string) []slog.Record {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []slog.Record
	for _, r := range h.recs {
		if r.Message == msg {
			out = append(out, r)
		}
	}
	return out
}

func attr(r slog.Record, key string) string {
	v := ""
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == key {
			v = a.Value.String()
			return false
		}
		return true
	})
	return v
}

// newServer is an API server on the test stack whose log goes to the returned records.
func newServer(t *testing.T, listen string) (*api.Server, *records) {
	t.Helper()
	srv, logs, _ := newServerOn(t, listen, testenv.DB(t))
	return srv, logs
}

func newServerOn(t *testing.T, listen string, db *pgxpool.Pool) (*api.Server, *records, *pgxpool.Pool) {
	t.Helper()
	logs := &records{}
	cfg := api.DefaultConfig()
	cfg.Listen = listen
	srv := api.New(cfg, api.Deps{DB: db, Streams: testenv.Streams(t, testenv.RedisAddr(t)),
		Languages: lang.Default(), Log: slog.New(logs)})
	return srv, logs, db
}

// A busy address fails the start at once, naming the address and what to do, and nothing
// is logged as listening.
func TestBusyAddressFailsBeforeListening(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	addr := busy.Addr().String()
	srv, logs := newServer(t, addr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err = srv.Run(ctx) // returns by itself: the test times out if it serves instead
	if err == nil {
		t.Fatal("Run on a busy address returned no error")
	}
	for _, want := range []string{"listen " + addr, "address already in use", "another ojd", "api.listen"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q lacks %q", err, want)
		}
	}
	if got := logs.find("api listening"); len(got) != 0 {
		t.Fatalf("logged %d \"api listening\" lines before failing", len(got))
	}
	var ne *net.OpError
	if errors.As(err, &ne) {
		t.Fatalf("the raw net error leaked: %v", err)
	}
}

// Port 0 binds an ephemeral port; the log names the port bound, and it serves there.
func TestPortZeroReportsTheBoundAddress(t *testing.T) {
	t.Parallel()
	srv, logs := newServer(t, "127.0.0.1:0")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	var addr string
	for addr == "" {
		select {
		case err := <-done:
			t.Fatalf("Run ended: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
		if l := logs.find("api listening"); len(l) > 0 {
			addr = attr(l[0], "addr")
		}
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host != "127.0.0.1" || port == "0" || port == "" {
		t.Fatalf("api listening addr=%q: want 127.0.0.1 and the port the kernel chose", addr)
	}
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz on the logged address: %d %v", resp.StatusCode, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run after cancel: %v", err)
	}
}
