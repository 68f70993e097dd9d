package api_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"oj/core/store"
	"oj/core/testenv"
)

// The request log: successful reads (the dashboard's polling) at debug, mutating
// requests and refusals at info, the server's own failures at error.
func TestRequestLogLevels(t *testing.T) {
	t.Parallel()
	srv, logs, db := newServerOn(t, "", testenv.DB(t))
	h := httptest.NewServer(srv.Handler())
	defer h.Close()
	admin, err := store.CreateToken(context.Background(), db, "admin", "admin")
	if err != nil {
		t.Fatal(err)
	}
	user, err := store.CreateToken(context.Background(), db, "alice", "user")
	if err != nil {
		t.Fatal(err)
	}
	do := func(h *httptest.Server, method, path, token, body string) int {
		t.Helper()
		req, _ := http.NewRequest(method, h.URL+path, strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// levelOf is the level of the one request line logged for method and path (the line
	// is written as the handler returns, which may be a moment after the client has read
	// the answer: it is waited for).
	levelOf := func(logs *records, method, path string, status int) slog.Level {
		t.Helper()
		var found []slog.Record
		for deadline := time.Now().Add(10 * time.Second); len(found) == 0 && time.Now().Before(deadline); {
			for _, r := range logs.find("request") {
				if attr(r, "method") == method && attr(r, "path") == path && attr(r, "status") == strconv.Itoa(status) {
					found = append(found, r)
				}
			}
			if len(found) == 0 {
				time.Sleep(5 * time.Millisecond)
			}
		}
		if len(found) != 1 {
			t.Fatalf("%d request lines for %s %s %d, want 1", len(found), method, path, status)
		}
		return found[0].Level
	}

	cases := []struct {
		method, path, token, body string
		status                    int
		level                     slog.Level
	}{
		{"GET", "/admin/v1/overview", admin, "", 200, slog.LevelDebug},
		{"GET", "/admin/v1/dlq", admin, "", 200, slog.LevelDebug},
		{"GET", "/healthz", "", "", 200, slog.LevelDebug},
		{"POST", "/admin/v1/trim", admin, `{"strategy":"safe","dry_run":true}`, 200, slog.LevelInfo},
		{"GET", "/admin/v1/pel", "", "", 401, slog.LevelInfo},
		{"GET", "/admin/v1/workers", user, "", 403, slog.LevelInfo},
		{"GET", "/api/v1/submissions/00000000-0000-0000-0000-000000000000", admin, "", 404, slog.LevelInfo},
	}
	for _, c := range cases {
		if got := do(h, c.method, c.path, c.token, c.body); got != c.status {
			t.Fatalf("%s %s: %d, want %d", c.method, c.path, got, c.status)
		}
		if got := levelOf(logs, c.method, c.path, c.status); got != c.level {
			t.Errorf("%s %s %d logged at %s, want %s", c.method, c.path, c.status, got, c.level)
		}
	}

	// PostgreSQL gone: the token cannot be checked, 503, an error line.
	gone := testenv.DB(t)
	srv2, logs2, _ := newServerOn(t, "", gone)
	h2 := httptest.NewServer(srv2.Handler())
	defer h2.Close()
	gone.Close()
	if got := do(h2, "GET", "/admin/v1/overview", admin, ""); got != http.StatusServiceUnavailable {
		t.Fatalf("with PostgreSQL closed: %d, want 503", got)
	}
	if got := levelOf(logs2, "GET", "/admin/v1/overview", 503); got != slog.LevelError {
		t.Errorf("503 logged at %s, want ERROR", got)
	}
}
