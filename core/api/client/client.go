// Package client is the Go client of oj's HTTP API: every endpoint of ojd api, with the
// request and answer types of core/wire, and errors that carry the HTTP status, the
// server's code and message. ojctl and the TUI use it; it links no server code.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"oj/core/wire"
)

// Client talks to one server with one token.
type Client struct {
	// BaseURL is the server, e.g. http://127.0.0.1:8080.
	BaseURL string
	// Token is the bearer token.
	Token string
	// HTTP is the HTTP client (nil: one without a timeout, so event streams and waits work;
	// bound calls with their context).
	HTTP *http.Client
	// TraceID, when set, is sent as X-Trace-Id.
	TraceID string
}

// New returns a client of the server at baseURL with token.
func New(baseURL, token string) *Client {
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), Token: token}
}

// Error is a failed call: the server's answer (Status > 0) or a transport failure
// (Status 0, Err set).
type Error struct {
	Server     string
	Method     string
	Path       string
	Status     int
	Code       string
	Message    string
	RetryAfter time.Duration
	Err        error
}

func (e *Error) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("%s %s%s: %v", e.Method, e.Server, e.Path, e.Err)
	}
	return fmt.Sprintf("%s %s%s: %d %s: %s", e.Method, e.Server, e.Path, e.Status, e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// StatusOf returns the HTTP status of a failed call (0 if it did not reach the server).
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

// request is one call: body is JSON-encoded unless it is an io.Reader.
type request struct {
	method, path string
	query        url.Values
	body         any
	header       http.Header
}

func (c *Client) do(ctx context.Context, rq request) (*http.Response, error) {
	u := strings.TrimRight(c.BaseURL, "/") + rq.path
	if len(rq.query) > 0 {
		u += "?" + rq.query.Encode()
	}
	var body io.Reader
	contentType := ""
	switch b := rq.body.(type) {
	case nil:
	case io.Reader:
		body, contentType = b, "application/octet-stream"
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			return nil, c.fail(rq, err)
		}
		body, contentType = bytes.NewReader(buf), "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, rq.method, u, body)
	if err != nil {
		return nil, c.fail(rq, err)
	}
	for k, vs := range rq.header {
		req.Header[k] = vs
	}
	if contentType != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if c.TraceID != "" {
		req.Header.Set("X-Trace-Id", c.TraceID)
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return nil, c.fail(rq, err)
	}
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		return nil, c.apiError(rq, resp)
	}
	return resp, nil
}

func (c *Client) fail(rq request, err error) *Error {
	return &Error{Server: c.BaseURL, Method: rq.method, Path: rq.path, Err: err}
}

func (c *Client) apiError(rq request, resp *http.Response) *Error {
	e := &Error{Server: c.BaseURL, Method: rq.method, Path: rq.path, Status: resp.StatusCode}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var we wire.Error
	if json.Unmarshal(b, &we) == nil && we.Error.Code != "" {
		e.Code, e.Message = we.Error.Code, we.Error.Message
	} else {
		e.Code, e.Message = "http_"+strconv.Itoa(resp.StatusCode), strings.TrimSpace(string(b))
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
		e.RetryAfter = time.Duration(s) * time.Second
	}
	return e
}

// call does rq and decodes the JSON answer into out (when not nil).
func (c *Client) call(ctx context.Context, rq request, out any) error {
	resp, err := c.do(ctx, rq)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return c.fail(rq, fmt.Errorf("decode answer: %w", err))
	}
	return nil
}

func esc(s string) string { return url.PathEscape(s) }

// dryRunQuery is the query of a DELETE that may be a dry run (it takes no body).
func dryRunQuery(dryRun bool) url.Values {
	q := url.Values{}
	if dryRun {
		q.Set("dry_run", "true")
	}
	return q
}
