package webhook_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"oj/core/webhook"
)

// The example of the Standard Webhooks specification (and Svix's libraries' tests).
func TestSignMatchesTheStandardWebhooksExample(t *testing.T) {
	t.Parallel()
	sig, err := webhook.Sign([]string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, "msg_p5jXN8AQM9LWM0D4loKWxJek",
		1614265330, []byte(`{"test": 2432232314}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; sig != want {
		t.Fatalf("signature %q, want %q", sig, want)
	}
	two, err := webhook.Sign([]string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_AAAA"}, "msg_p5jXN8AQM9LWM0D4loKWxJek",
		1614265330, []byte(`{"test": 2432232314}`))
	if err != nil || !strings.HasPrefix(two, sig+" v1,") {
		t.Fatalf("two secrets: %q, %v; want the first signature, a space and a second one", two, err)
	}
	if _, err := webhook.Sign([]string{"not-a-secret"}, "x", 1, nil); err == nil {
		t.Fatal("a secret without whsec_ signed")
	}
	s, err := webhook.NewSecret()
	if err != nil || !strings.HasPrefix(s, "whsec_") || len(s) != len("whsec_")+44 {
		t.Fatalf("new secret %q, %v", s, err)
	}
}

func TestRefusalCoversLoopbackPrivateLinkLocalAndTheirDisguises(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr    string
		refused bool
	}{
		{"127.0.0.1", true}, {"127.1.2.3", true}, {"::1", true}, {"0.0.0.0", true}, {"::", true},
		{"10.0.0.1", true}, {"172.16.5.4", true}, {"172.31.255.255", true}, {"192.168.1.1", true},
		{"169.254.169.254", true}, {"fe80::1", true}, {"fd00:ec2::254", true}, {"fc00::1", true},
		{"100.64.0.1", true}, {"100.100.100.200", true}, {"224.0.0.1", true}, {"ff02::1", true},
		{"255.255.255.255", true}, {"198.18.0.1", true},
		{"::ffff:127.0.0.1", true}, {"::ffff:169.254.169.254", true}, {"64:ff9b::7f00:1", true}, {"64:ff9b::a9fe:a9fe", true},
		{"8.8.8.8", false}, {"1.1.1.1", false}, {"172.32.0.1", false}, {"100.128.0.1", false},
		{"2001:4860:4860::8888", false}, {"::ffff:8.8.8.8", false}, {"64:ff9b::808:808", false},
	} {
		why := webhook.Refusal(netip.MustParseAddr(tc.addr))
		if (why != "") != tc.refused {
			t.Errorf("%s: refusal %q, want refused=%v", tc.addr, why, tc.refused)
		}
	}
}

func TestValidateURLTakesHTTPAndHTTPSOnly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"https://example.org/hooks/oj", true}, {"http://example.org:8080/x?y=1", true}, {"http://127.0.0.1:9/x", true},
		{"ftp://example.org/", false}, {"file:///etc/passwd", false}, {"gopher://x/", false}, {"example.org/x", false},
		{"https://user:pw@example.org/", false}, {"https://user@example.org/", false}, {"https:///x", false},
		{"https://example.org/#frag", false}, {"https://example.org:0/", false}, {"https://example.org:99999/", false},
		{"http://exa mple.org/", false}, {"javascript:alert(1)", false}, {"https://" + strings.Repeat("a", 2100) + ".org/", false},
	} {
		err := webhook.ValidateURL(tc.url)
		if (err == nil) != tc.ok {
			t.Errorf("%.60s: %v, want ok=%v", tc.url, err, tc.ok)
		}
	}
}

func testConfig() webhook.Config {
	cfg := webhook.DefaultConfig()
	cfg.Timeout = 2 * time.Second
	cfg.Lease = 10 * time.Second
	return cfg
}

func message(url string) webhook.Message {
	return webhook.Message{ID: "0190c6c2-7d2a-7b3e-9a57-1f0e6c2b4d11", URL: url,
		Secrets: []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, Body: []byte(`{"id":"1-2"}`)}
}

// counting is a receiver that counts what reaches it.
func counting(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1); h(w, r) }))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestSenderRefusesLoopbackAndANameResolvingToIt(t *testing.T) {
	t.Parallel()
	srv, hits := counting(t, func(w http.ResponseWriter, _ *http.Request) {})
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	s := webhook.NewSender(testConfig())
	defer s.Close()
	for _, url := range []string{srv.URL, "http://localhost:" + port + "/hook", "http://[::ffff:127.0.0.1]:" + port + "/"} {
		r := s.Send(context.Background(), message(url), time.Now())
		if r.Outcome != webhook.Failed || r.Status != 0 || !strings.HasPrefix(r.Error, "refused: ") ||
			!strings.Contains(r.Error, "loopback") {
			t.Errorf("%s: %+v, want refused as loopback", url, r)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("the receiver got %d requests, want 0", hits.Load())
	}
	cfg := testConfig()
	cfg.AllowPrivate = true
	open := webhook.NewSender(cfg)
	defer open.Close()
	if r := open.Send(context.Background(), message("http://localhost:"+port+"/"), time.Now()); r.Outcome != webhook.Delivered {
		t.Fatalf("with allow_private: %+v, want delivered", r)
	}
}

// A redirect is never followed, even from an address the guard lets through to one it
// would refuse: the try fails with the 3xx and the target sees nothing.
func TestSenderNeverFollowsARedirect(t *testing.T) {
	t.Parallel()
	target, hits := counting(t, func(w http.ResponseWriter, _ *http.Request) {})
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2 here: %v", err)
	}
	redirector := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/stolen", http.StatusTemporaryRedirect)
	}))
	redirector.Listener = ln
	redirector.Start()
	defer redirector.Close()
	public := netip.MustParseAddr("127.0.0.2")
	s := webhook.NewSenderPermitting(testConfig(), func(a netip.Addr) bool { return a == public })
	defer s.Close()
	r := s.Send(context.Background(), message(redirector.URL), time.Now())
	if r.Outcome != webhook.Failed || r.Status != http.StatusTemporaryRedirect || !strings.Contains(r.Error, "not followed") {
		t.Fatalf("%+v, want a failed try with the 307", r)
	}
	if hits.Load() != 0 {
		t.Fatalf("the redirect's target got %d requests, want 0", hits.Load())
	}
}

func TestSenderClassifiesAnswers(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name       string
		h          http.HandlerFunc
		outcome    webhook.Outcome
		status     int
		errPrefix  string
		retryAfter time.Duration
	}{
		{"200", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") }, webhook.Delivered, 200, "", 0},
		{"204", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) }, webhook.Delivered, 204, "", 0},
		{"500 with a body", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(500)
			fmt.Fprint(w, "boom\n"+strings.Repeat("x", 10000))
		}, webhook.Failed, 500, "HTTP 500: boom x", 0},
		{"301", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://elsewhere.example/", http.StatusMovedPermanently)
		},
			webhook.Failed, 301, "HTTP 301: a redirect", 0},
		{"304", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(304) }, webhook.Failed, 304, "HTTP 304", 0},
		{"410", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(410) }, webhook.Gone, 410, "HTTP 410", 0},
		{"429 in seconds", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(429)
		}, webhook.Failed, 429, "HTTP 429", 7 * time.Second},
		{"503 with a date", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", now.Add(90*time.Second).Format(http.TimeFormat))
			w.WriteHeader(503)
		}, webhook.Failed, 503, "HTTP 503", 90 * time.Second},
		{"500 ignores Retry-After", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(500)
		}, webhook.Failed, 500, "HTTP 500", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := counting(t, tc.h)
			cfg := testConfig()
			cfg.AllowPrivate = true
			s := webhook.NewSender(cfg)
			defer s.Close()
			r := s.Send(context.Background(), message(srv.URL), now)
			if r.Outcome != tc.outcome || r.Status != tc.status || !strings.HasPrefix(r.Error, tc.errPrefix) ||
				r.RetryAfter != tc.retryAfter || len(r.Error) > cfg.MaxResponseBytes+64 {
				t.Fatalf("%+v (error %d bytes), want outcome %v, status %d, error %q…, retry after %v", r, len(r.Error),
					tc.outcome, tc.status, tc.errPrefix, tc.retryAfter)
			}
		})
	}
}

func TestSenderTimesOut(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv, _ := counting(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	cfg := testConfig()
	cfg.AllowPrivate = true
	cfg.Timeout = 200 * time.Millisecond
	s := webhook.NewSender(cfg)
	defer s.Close()
	r := s.Send(context.Background(), message(srv.URL), time.Now())
	if r.Outcome != webhook.Failed || r.Status != 0 || !strings.HasPrefix(r.Error, "timeout: ") {
		t.Fatalf("%+v, want a timeout", r)
	}
}

// The headers are those of Standard Webhooks, and the signature is over the exact body.
func TestSenderSignsWhatItSends(t *testing.T) {
	t.Parallel()
	var got http.Header
	var body []byte
	srv, _ := counting(t, func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		body, _ = io.ReadAll(r.Body)
	})
	cfg := testConfig()
	cfg.AllowPrivate = true
	s := webhook.NewSender(cfg)
	defer s.Close()
	m := message(srv.URL)
	now := time.Unix(1700000000, 0)
	if r := s.Send(context.Background(), m, now); r.Outcome != webhook.Delivered {
		t.Fatal(r)
	}
	want, _ := webhook.Sign(m.Secrets, m.ID, now.Unix(), m.Body)
	if got.Get("webhook-id") != m.ID || got.Get("webhook-timestamp") != "1700000000" || got.Get("webhook-signature") != want ||
		got.Get("Content-Type") != "application/json" || string(body) != string(m.Body) {
		t.Fatalf("headers %v, body %q", got, body)
	}
}

func TestNextTryFollowsTheScheduleWithinTheWindow(t *testing.T) {
	t.Parallel()
	cfg := webhook.DefaultConfig()
	if w := cfg.Window(); w < 72*time.Hour || w > 80*time.Hour {
		t.Fatalf("default window %v, want about three days", w)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	expires := start.Add(cfg.Window())
	for attempt, step := range cfg.Schedule {
		now := start.Add(time.Minute)
		next, ok := cfg.NextTry(attempt+1, webhook.Result{Outcome: webhook.Failed}, now, expires)
		wait := next.Sub(now)
		if !ok || (next.Before(expires) && (wait < step*8/10 || wait > step*12/10)) {
			t.Fatalf("attempt %d: next in %v (ok %v), want %v ±20 %%", attempt+1, wait, ok, step)
		}
	}
	// Past the schedule the last step repeats; the window's end is the last try.
	near := expires.Add(-time.Hour)
	if next, ok := cfg.NextTry(40, webhook.Result{}, near, expires); !ok || !next.Equal(expires) {
		t.Fatalf("an hour before expiry: %v %v, want one last try at the expiry", next, ok)
	}
	if _, ok := cfg.NextTry(41, webhook.Result{}, expires, expires); ok {
		t.Fatal("a try at the expiry that failed is tried again")
	}
	// Retry-After is honoured, within 1 s .. the longest step.
	now := start.Add(time.Hour)
	for _, tc := range []struct{ asked, want time.Duration }{
		{30 * time.Second, 30 * time.Second}, {time.Millisecond, time.Second}, {1000 * time.Hour, 10 * time.Hour},
	} {
		next, _ := cfg.NextTry(1, webhook.Result{RetryAfter: tc.asked}, now, expires)
		if next.Sub(now) != tc.want {
			t.Errorf("Retry-After %v: next in %v, want %v", tc.asked, next.Sub(now), tc.want)
		}
	}
}

func TestConfigValidateNamesTheKey(t *testing.T) {
	t.Parallel()
	if err := webhook.DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	for key, mutate := range map[string]func(*webhook.Config){
		"webhooks.timeout":     func(c *webhook.Config) { c.Timeout = 0 },
		"webhooks.schedule":    func(c *webhook.Config) { c.Schedule = []time.Duration{time.Second, -time.Second} },
		"webhooks.concurrency": func(c *webhook.Config) { c.Concurrency = 0 },
		"webhooks.lease":       func(c *webhook.Config) { c.Lease = c.Timeout },
	} {
		c := webhook.DefaultConfig()
		mutate(&c)
		if err := c.Validate(); err == nil || !strings.HasPrefix(err.Error(), key) {
			t.Errorf("%s: %v", key, err)
		}
	}
}
