package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"oj/core/api/apitest"
	"oj/core/api/client"
	"oj/tui/styles"
)

// A user token: the header says the token is not an admin token (not "OFFLINE … 403"),
// and the status line how to get one; the same when the token is refused mid-session.
func TestUserTokenSaysTheDashboardNeedsAnAdminToken(t *testing.T) {
	forbidden := &client.Error{Server: "http://127.0.0.1:8080", Method: "GET", Path: "/admin/v1/overview", Status: 403,
		Code: "forbidden", Message: `this route needs an admin token; "alice" is a user token`}
	for _, s := range sizes {
		t.Run(size(s.w, s.h), func(t *testing.T) {
			h := newHarness(t, s.w, s.h, false, &fake{down: forbidden})
			h.refresh(time.Second)
			h.golden("refused_user_token_" + size(s.w, s.h))
			view := ansi.Strip(h.m.View())
			for _, want := range []string{"REFUSED: this token is not an admin token", "the dashboard needs an admin token", "ojd token create --name NAME --role admin"} {
				if !strings.Contains(view, want) {
					t.Fatalf("screen lacks %q:\n%s", want, view)
				}
			}
			if strings.Contains(view, "OFFLINE") || strings.Contains(view, "403") {
				t.Fatalf("a refused token shown as offline or a raw 403:\n%s", view)
			}
		})
	}
	h := newHarness(t, 80, 24, false, &fake{})
	h.warm()
	h.f.down = forbidden
	h.refresh(2 * time.Second)
	if view := ansi.Strip(h.m.View()); !strings.Contains(view, "STALE 2s: REFUSED: this token is not an admin token") {
		t.Fatalf("refused mid-session:\n%s", view)
	}
}

// On the real API a user token's refresh fails with the 403 that refused explains.
func TestRefreshWithAUserTokenIsRefusedOnTheRealAPI(t *testing.T) {
	e := apitest.New(t, apitest.Options{NoWorker: true})
	user := e.Client("alice", "user")
	m := New(Config{Source: user, Server: user.BaseURL, Styles: styles.Plain()})
	m.SetSize(80, 24)
	m.Update(dataMsgOf(m))
	if what, _ := refused(m.lastErr); what != "this token is not an admin token" {
		t.Fatalf("refresh error %v: refused says %q", m.lastErr, what)
	}
	if view := ansi.Strip(m.View()); !strings.Contains(view, "REFUSED: this token is not an admin token") {
		t.Fatalf("header:\n%s", view)
	}
}
