package webhook_test

import (
	"context"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"oj/core/webhook"
)

// A run callback is a PUT with the face's content type; with no secret it goes out
// unsigned, its webhook-id and webhook-timestamp still set.
func TestSenderPutsUnsignedWithTheGivenContentType(t *testing.T) {
	t.Parallel()
	type seen struct{ method, contentType, id, ts, sig string }
	got := make(chan seen, 1)
	srv, _ := counting(t, func(w http.ResponseWriter, r *http.Request) {
		got <- seen{r.Method, r.Header.Get("Content-Type"), r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp"),
			r.Header.Get("webhook-signature")}
		w.WriteHeader(http.StatusOK)
	})
	s := webhook.NewSenderPermitting(testConfig(), func(netip.Addr) bool { return true })
	defer s.Close()
	m := message(srv.URL)
	m.Secrets, m.Method, m.ContentType = nil, http.MethodPut, "application/vnd.judge0+json"
	if r := s.Send(context.Background(), m, time.Unix(1700000000, 0)); r.Outcome != webhook.Delivered {
		t.Fatalf("%+v", r)
	}
	h := <-got
	if h.method != http.MethodPut || h.contentType != "application/vnd.judge0+json" || h.id != m.ID || h.ts != "1700000000" || h.sig != "" {
		t.Fatalf("%+v", h)
	}
}

// webhooks.callback_secret is a whsec_ secret or empty.
func TestCallbackSecretIsValidated(t *testing.T) {
	cfg := testConfig()
	cfg.CallbackSecret = "not-a-secret"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "webhooks.callback_secret") {
		t.Fatalf("a bad secret: %v", err)
	}
	cfg.CallbackSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
}
