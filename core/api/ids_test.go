package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// A submission id is its canonical form or nothing: another spelling of the same UUID
// (uppercase, braces, urn:uuid:, no hyphens) is an unknown submission — a 404, never a
// 503 "storage unavailable" (which retrying cannot cure and which pages the operator),
// and never an event stream that waits for notifications that carry the canonical id.
func TestNonCanonicalIDsAreRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	id := e.submit(e.alice, "print(1)")
	e.waitTerminal(id, 20*time.Second)
	spellings := []string{strings.ToUpper(id), "urn:uuid:" + id, "{" + id + "}", strings.ReplaceAll(id, "-", ""),
		id[:35], id + "0"}
	for _, sp := range spellings {
		p := "/api/v1/submissions/" + url.PathEscape(sp)
		for _, c := range []struct {
			method, path, token string
			want                int
		}{
			{"GET", p, tokenOf(e.alice), http.StatusNotFound},
			{"GET", p + "/events", tokenOf(e.alice), http.StatusNotFound},
			{"GET", p + "/cases/1", tokenOf(e.alice), http.StatusNotFound},
			{"GET", p, tokenOf(e.admin), http.StatusNotFound},
			{"GET", "/admin/v1/submissions/" + url.PathEscape(sp) + "/trace", tokenOf(e.admin), http.StatusNotFound},
			{"POST", "/admin/v1/submissions/" + url.PathEscape(sp) + "/rejudge", tokenOf(e.admin), http.StatusNotFound},
			{"POST", "/admin/v1/submissions/" + url.PathEscape(sp) + "/cancel", tokenOf(e.admin), http.StatusNotFound},
		} {
			code, _, body := e.raw(c.method, c.path, c.token, nil, nil)
			if code != c.want {
				t.Errorf("%s %s: %d %v, want %d", c.method, c.path, code, body, c.want)
			}
		}
		for _, action := range []string{"/admin/v1/dlq/replay", "/admin/v1/dlq/purge"} {
			code, _, body := e.raw("POST", action, tokenOf(e.admin), []byte(`{"ids":["`+sp+`"],"dry_run":true}`), nil)
			if code != http.StatusBadRequest {
				t.Errorf("POST %s with %q: %d %v, want 400", action, sp, code, body)
			}
		}
	}
	if code, _, _ := e.raw("GET", "/api/v1/submissions/"+id, tokenOf(e.alice), nil, nil); code != http.StatusOK {
		t.Fatalf("the canonical id: %d", code)
	}
}
