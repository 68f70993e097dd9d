package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"oj/core/api/apitest"
	"oj/core/dispatch"
	"oj/core/wire"
)

// ojctl webhook add, test, deliveries, ls, disable, redeliver, enable and rm against a
// real pipeline whose dispatcher may reach this test's receiver on 127.0.0.1.
func TestWebhookCommands(t *testing.T) {
	t.Parallel()
	var answer atomic.Int32
	answer.Store(http.StatusInternalServerError)
	var hits atomic.Int32
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(int(answer.Load()))
	}))
	defer recv.Close()
	a := apitest.New(t, apitest.Options{Dispatcher: func(c *dispatch.Config) {
		c.Webhooks.AllowPrivate = true
		c.Webhooks.Schedule = []time.Duration{time.Hour}
		c.Webhooks.PollInterval = 50 * time.Millisecond
	}})
	e := &env{t: t, db: a.DB, judge: a.Judge, url: a.HTTP.URL, admin: a.Admin, adminToken: a.AdminToken, objects: a.Objects}

	r := e.ojctl("webhook", "add", "ftp://example.com/x")
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, "http or https")
	r = e.ojctl("webhook", "add", recv.URL, "--event", "submission.finished", "--dry-run")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "dry run: would register", "submission.finished")
	r = e.ojctl("webhook", "add", recv.URL, "--event", "submission.finished", "-o", "json")
	wantCode(t, r, 0)
	var created wire.WebhookCreated
	decode(t, r, &created)
	id := created.Webhook.ID
	if !strings.HasPrefix(created.Secret, "whsec_") || id == "" {
		t.Fatalf("created %+v", created)
	}

	// A test delivery answered 500: failing, retried in an hour; ls says so and exits 1.
	r = e.ojctl("webhook", "test", id)
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "queued test delivery")
	waitHits(t, &hits, 1)
	var list wire.WebhookDeliveryList
	waitFor(t, func() bool {
		r = e.ojctl("webhook", "deliveries", id, "-o", "json")
		decode(t, r, &list)
		return len(list.Items) == 1 && list.Items[0].Attempts == 1 && !list.Items[0].InFlight
	})
	if d := list.Items[0]; d.Status != "pending" || d.LastStatus == nil || *d.LastStatus != 500 || d.EventType != "webhook.test" {
		t.Fatalf("delivery after a 500: %+v", d)
	}
	r = e.ojctl("webhook", "ls")
	wantCode(t, r, 1)
	wantIn(t, "stdout", r.stdout, recv.URL, "failing since", "HTTP 500")
	r = e.ojctl("webhook", "deliveries", id)
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "webhook.test", "pending", "500", "in ")

	// Redelivered now, answered 204: delivered, the endpoint healthy again.
	answer.Store(http.StatusNoContent)
	r = e.ojctl("webhook", "redeliver", id, list.Items[0].ID)
	wantCode(t, r, 2) // no terminal, no --yes
	r = e.ojctl("webhook", "redeliver", id, list.Items[0].ID, "--yes")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "Redelivered", "Tries before")
	waitHits(t, &hits, 2)
	waitFor(t, func() bool {
		r = e.ojctl("webhook", "deliveries", id, "--status", "delivered", "-o", "json")
		decode(t, r, &list)
		return len(list.Items) == 1
	})
	r = e.ojctl("webhook", "ls")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "recovered; failed", "ago: HTTP 500")
	var hooks wire.WebhookList
	decode(t, e.ojctl("webhook", "ls", "-o", "json"), &hooks)
	if w := hooks.Items[0]; w.FailingSince != nil || !strings.Contains(w.LastError, "HTTP 500") || w.LastErrorAt == nil {
		t.Fatalf("the endpoint after a delivery: failing_since %v, last_error %q at %v; want no failing_since, the error and its time",
			w.FailingSince, w.LastError, w.LastErrorAt)
	}

	// Disable and enable; each a second time changes nothing.
	r = e.ojctl("webhook", "disable", id, "--yes")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "Disabled")
	r = e.ojctl("webhook", "test", id)
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, "disabled")
	r = e.ojctl("webhook", "ls")
	wantIn(t, "stdout", r.stdout, "disabled: disabled by admin")
	r = e.ojctl("webhook", "enable", id, "--yes")
	wantCode(t, r, 0)
	r = e.ojctl("webhook", "enable", id, "--yes", "-o", "json")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, `"changed":0`)

	r = e.ojctl("webhook", "rotate", id, "--yes")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "whsec_", "Old secret signs until")

	r = e.ojctl("webhook", "rm", id, "--dry-run")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "would remove webhook")
	r = e.ojctl("webhook", "rm", id, "--yes")
	wantCode(t, r, 0)
	r = e.ojctl("webhook", "rm", id, "--yes")
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, "no webhook")
	if n := e.audited(); n == 0 {
		t.Fatal("no audit rows")
	}
}

func waitHits(t *testing.T, hits *atomic.Int32, n int32) {
	t.Helper()
	waitFor(t, func() bool { return hits.Load() >= n })
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 20 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
