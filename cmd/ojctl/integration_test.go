package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"oj/core/api/client"
	"oj/core/wire"
)

// ojctl token create, ls and revoke over the admin API; the created token works.
func TestTokenCommands(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.ojctl("token", "create", "site", "--role", "reader", "--dry-run")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, `dry run: would create reader token "site"`)
	r = e.ojctl("token", "create", "site", "--role", "reader", "-o", "json")
	wantCode(t, r, 0)
	var created wire.TokenCreated
	decode(t, r, &created)
	if !strings.HasPrefix(created.Secret, "oj_") || created.Token.Role != "reader" {
		t.Fatalf("created %+v", created)
	}
	// The reader reads every submission and the feed, and cannot submit.
	wantCode(t, e.exec(run{args: []string{"submissions"}, token: &created.Secret}), 0)
	wantCode(t, e.exec(run{args: []string{"events"}, token: &created.Secret}), 0)
	r = e.exec(run{args: []string{"submit", writeFile(t, "a.py", "print(1)\n"), "--problem", "aplusb"}, token: &created.Secret})
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, "changes nothing")

	r = e.ojctl("token", "create", "bulk", "--role", "user", "--rate", "50", "--burst", "200", "--max-live", "2000")
	wantCode(t, r, 0)
	r = e.ojctl("token", "ls")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "site", "reader", "bulk", "50", "200", "2000", "default")
	r = e.ojctl("token", "revoke", "site", "--yes")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "Revoked")
	wantCode(t, e.exec(run{args: []string{"submissions"}, token: &created.Secret}), 1)
	r = e.ojctl("token", "revoke", "site", "--yes")
	wantCode(t, r, 1)
}

// ojctl submit --meta tags a submission; submissions --meta finds it; events prints the
// feed to its head, one JSON line per event with -o jsonl.
func TestMetadataAndEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	src := writeFile(t, "a.py", "print(1)\n")
	r := e.exec(run{args: []string{"submit", src, "--problem", "aplusb", "--meta", "contest=icpc", "--meta", "user=7", "--wait", "-o", "json"}, token: &e.userToken})
	wantCode(t, r, 0)
	var s wire.Submission
	decode(t, r, &s)
	if s.Metadata["contest"] != "icpc" || s.Metadata["user"] != "7" {
		t.Fatalf("metadata %v", s.Metadata)
	}
	r = e.exec(run{args: []string{"submit", src, "--problem", "aplusb", "--meta", "nokey"}, token: &e.userToken})
	wantCode(t, r, 2)
	r = e.ojctl("submissions", "--meta", "contest=icpc", "-o", "json")
	wantCode(t, r, 0)
	var page wire.SubmissionList
	decode(t, r, &page)
	if len(page.Items) != 1 || page.Items[0].ID != s.ID || page.Items[0].Owner != "alice" {
		t.Fatalf("submissions --meta: %+v", page)
	}
	// A user's submission is no verification's: --purpose verify finds nothing, all finds it.
	r = e.ojctl("submissions", "--meta", "contest=icpc", "--purpose", "verify", "-o", "json")
	wantCode(t, r, 0)
	decode(t, r, &page)
	if len(page.Items) != 0 {
		t.Fatalf("submissions --purpose verify: %+v", page)
	}
	r = e.ojctl("submissions", "--meta", "contest=icpc", "--purpose", "all", "-o", "json")
	wantCode(t, r, 0)
	decode(t, r, &page)
	if len(page.Items) != 1 || page.Items[0].Purpose != "user" {
		t.Fatalf("submissions --purpose all: %+v", page)
	}
	r = e.ojctl("submissions", "--purpose", "robots")
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, "purpose")
	// The feed ends at its head, which a write transaction still open anywhere on the
	// PostgreSQL server holds back (other tests run beside this one): read until the three
	// events of the submission are there.
	var types []string
	deadline := time.Now().Add(20 * time.Second)
	for len(types) < 3 && time.Now().Before(deadline) {
		r = e.ojctl("events", "--meta", "contest=icpc", "-o", "jsonl")
		wantCode(t, r, 0)
		types = nil
		for _, line := range strings.Split(r.stdout, "\n") {
			if line == "" {
				continue
			}
			var ev wire.Event
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			types = append(types, ev.Type)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(types) != 3 || types[0] != wire.EventQueued || types[2] != wire.EventFinished {
		t.Fatalf("events --meta: %v\n%s", types, r.stdout)
	}
	r = e.ojctl("events", "--since", "99999999999-1")
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, "resynchronise")
}

// events --follow reconnects after a dropped connection (an API restart) and resumes from
// the last cursor it printed, so nothing is missed or printed twice; a cancelled context
// (SIGINT) ends it cleanly.
func TestEventsFollowResumesAfterADrop(t *testing.T) {
	t.Parallel()
	ev := func(id string) string {
		return `{"id":"` + id + `","type":"submission.queued","reason":"submitted","time":"2026-01-01T00:00:00Z","data":{"id":"x","attempt":0}}` + "\n"
	}
	var mu sync.Mutex
	var sinces []string
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sinces = append(sinces, r.URL.Query().Get("since"))
		n := len(sinces)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-ndjson")
		switch n {
		case 1: // two events, then the connection drops (a restart)
			fmt.Fprint(w, ev("10-1")+ev("10-2"))
		case 2:
			fmt.Fprint(w, ev("11-3"))
			w.(http.Flusher).Flush()
			<-r.Context().Done() // open until ojctl is stopped
		default:
			t.Errorf("request %d", n)
		}
	}))
	defer srv.Close()
	var out bytes.Buffer
	var errOut bytes.Buffer
	// SIGINT once the third event is printed.
	stdout := writerFunc(func(p []byte) (int, error) {
		n, err := out.Write(p)
		if strings.Contains(string(p), "11-3") {
			cancel()
		}
		return n, err
	})
	a := &app{stdout: stdout, stderr: &errOut, output: "json"}
	c := client.New(srv.URL, "tok")
	if err := a.followFeed(ctx, c, client.FeedQuery{Follow: true}); err != nil {
		t.Fatalf("followFeed: %v", err)
	}
	if got := strings.Count(out.String(), "\n"); got != 3 || !strings.Contains(out.String(), "11-3") {
		t.Fatalf("printed:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}
	if len(sinces) != 2 || sinces[0] != "" || sinces[1] != "10-2" {
		t.Fatalf("since of each connection: %q, want [\"\" \"10-2\"]", sinces)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
