package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Sender makes tries: one HTTP POST each, signed, through the guard, never following a
// redirect.
type Sender struct {
	cfg    Config
	client *http.Client
}

// NewSender returns a sender for cfg.
func NewSender(cfg Config) *Sender { return newSender(cfg, nil) }

func newSender(cfg Config, permit func(netip.Addr) bool) *Sender {
	g := guard{allowPrivate: cfg.AllowPrivate, permit: permit}
	dialer := &net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second, Control: g.control}
	transport := &http.Transport{
		// Never a proxy from the environment: the guard would check the proxy's address,
		// not the receiver's.
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          cfg.Concurrency * 2,
		MaxIdleConnsPerHost:   cfg.Concurrency,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
	}
	client := &http.Client{
		Transport: transport,
		Timeout:   cfg.Timeout,
		// A redirect is an answer, not a place to go: it is a failed try.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &Sender{cfg: cfg, client: client}
}

// Close drops the sender's idle connections.
func (s *Sender) Close() { s.client.CloseIdleConnections() }

// Message is one try's content.
type Message struct {
	ID      string   // webhook-id: the delivery's, the same on every try
	URL     string   // the endpoint's
	Secrets []string // signing secrets (the previous one too during a rotation's grace); none: unsigned
	Body    []byte
	// Method is the request's (a run callback is a PUT); empty: POST.
	Method string
	// ContentType is the body's; empty: application/json.
	ContentType string
}

// Result is what a try came to.
type Result struct {
	Outcome Outcome
	// Status is the HTTP status answered, 0 when there was no answer.
	Status int
	// Error says why a try failed: the status and the start of the body, or the
	// connection's error. Empty when delivered.
	Error string
	// RetryAfter is the wait a 429 or 503 asked for (0: none given).
	RetryAfter time.Duration
}

// Outcome classifies a try.
type Outcome int

// Outcomes.
const (
	Delivered Outcome = iota // a 2xx
	Failed                   // anything else; tried again on the schedule
	Gone                     // 410: the receiver says the endpoint is gone for good
)

// UserAgent is the User-Agent of every try.
const UserAgent = "oj-webhooks/1"

// Send makes one try of m at now (the webhook-timestamp).
func (s *Sender) Send(ctx context.Context, m Message, now time.Time) Result {
	ts := now.Unix()
	sig, err := Sign(m.Secrets, m.ID, ts, m.Body)
	if err != nil {
		return Result{Outcome: Failed, Error: err.Error()}
	}
	method, contentType := m.Method, m.ContentType
	if method == "" {
		method = http.MethodPost
	}
	if contentType == "" {
		contentType = "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, method, m.URL, bytes.NewReader(m.Body))
	if err != nil {
		return Result{Outcome: Failed, Error: "request: " + err.Error()}
	}
	h := req.Header
	h.Set("Content-Type", contentType)
	h.Set("User-Agent", UserAgent)
	h.Set("webhook-id", m.ID)
	h.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	if sig != "" {
		h.Set("webhook-signature", sig)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return Result{Outcome: Failed, Error: s.describe(err)}
	}
	defer resp.Body.Close()
	// A body cut short (the timeout) still leaves the status, which decides.
	excerpt, _ := io.ReadAll(io.LimitReader(resp.Body, int64(s.cfg.MaxResponseBytes)))
	// Read a little more so the connection can be kept; a huge answer is cut instead.
	_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
	r := Result{Status: resp.StatusCode}
	switch code := resp.StatusCode; {
	case code >= 200 && code <= 299:
		r.Outcome = Delivered
		return r
	case code == http.StatusGone:
		r.Outcome = Gone
	case code >= 300 && code <= 399:
		r.Outcome = Failed
		where := resp.Header.Get("Location")
		r.Error = fmt.Sprintf("HTTP %d: a redirect (to %q) is not followed; only a 2xx delivers", code, clipText(where, 200))
		return r
	default:
		r.Outcome = Failed
		if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
			r.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), now)
		}
	}
	r.Error = fmt.Sprintf("HTTP %d", resp.StatusCode)
	if body := strings.TrimSpace(textOf(excerpt)); body != "" {
		r.Error += ": " + body
	}
	return r
}

// describe turns a transport error into a delivery's last error.
func (s *Sender) describe(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, ErrRefusedAddress):
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Err != nil {
			return "refused: " + strings.TrimPrefix(oe.Err.Error(), ErrRefusedAddress.Error()+": ")
		}
		return "refused: " + err.Error()
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Sprintf("timeout: no answer within %s (webhooks.timeout)", s.cfg.Timeout)
	}
	return err.Error()
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date. 0 when absent or
// unreadable.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		return time.Duration(min(n, int64(365*24*3600))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// textOf is an answer's body as one line of valid text.
func textOf(b []byte) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	return strings.Join(strings.Fields(s), " ")
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// NextTry is when a delivery tried attempts times, whose last try failed at now with r,
// is tried again, and whether it is (false: its window ends before: give up). The wait
// is the schedule's step for this attempt (its last step past the end) jittered by
// ±20 %, or the wait a 429 or 503 asked for, bounded to 1 s .. the longest step. A
// delivery is tried one last time at its expiry.
func (c Config) NextTry(attempts int, r Result, now, expires time.Time) (time.Time, bool) {
	if !now.Before(expires) {
		return time.Time{}, false
	}
	step := c.Schedule[min(max(attempts-1, 0), len(c.Schedule)-1)]
	wait := time.Duration(float64(step) * (0.8 + 0.4*rand.Float64()))
	if r.RetryAfter > 0 {
		longest := time.Second
		for _, d := range c.Schedule {
			longest = max(longest, d)
		}
		wait = min(max(r.RetryAfter, time.Second), longest)
	}
	next := now.Add(wait)
	if next.After(expires) {
		next = expires
	}
	return next, true
}
