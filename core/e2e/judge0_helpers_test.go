package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"oj/core/api"
	j0api "oj/core/api/judge0"
	"oj/core/judge/problem"
	"oj/core/store"
	"oj/core/testenv"
)

// j0 is the Judge0 face served over a real system: its base URL and tokens.
type j0face struct {
	t                   testing.TB
	base                string
	user, reader, admin string
}

// judge0On serves the real API with the Judge0 face mounted under /judge0, its run
// limits opened for batches of 20, and returns the face with a user, a reader and an
// admin token.
func judge0On(t testing.TB, s *system, tweak func(*j0api.Config)) *j0face {
	t.Helper()
	cfg := api.DefaultConfig()
	cfg.Limits.RunRate, cfg.Limits.RunMaxLivePerUser = 0, 50
	reg := prometheus.NewRegistry()
	srv := api.New(cfg, api.Deps{DB: s.db, Streams: s.streams, Languages: s.judge.Languages(), Objects: s.store,
		PackageLimits: problem.DefaultLimits(), Registerer: reg, Gatherer: reg})
	jcfg := j0api.DefaultConfig()
	jcfg.CORSAllowedOrigins = []string{"https://ide.example"}
	if tweak != nil {
		tweak(&jcfg)
	}
	face := j0api.New(jcfg, j0api.Deps{Host: srv, DB: s.db, Languages: s.judge.Languages(), Runs: cfg.Runs})
	srv.Mount(face.Prefix(), face.Handler())
	ctx, cancel := context.WithCancel(context.Background())
	srv.Start(ctx)
	h := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { h.Close(); cancel() })
	mk := func(role string) string {
		tok, err := store.CreateToken(context.Background(), s.db, testenv.RandomName("j0-"+role+"-"), role)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	prefix := jcfg.Prefix
	if prefix == "/" {
		prefix = ""
	}
	return &j0face{t: t, base: h.URL + prefix, user: mk("user"), reader: mk("reader"), admin: mk("admin")}
}

// do sends a request with the given headers and returns the status, headers and body.
func (c *j0face) do(method, path string, body any, headers ...string) (int, http.Header, []byte) {
	c.t.Helper()
	return c.doURL(method, c.base+path, body, headers...)
}

// doURL is do on a whole URL.
func (c *j0face) doURL(method, url string, body any, headers ...string) (int, http.Header, []byte) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, b
}

// as is the X-Auth-Token header of tok.
func as(tok string) []string { return []string{"X-Auth-Token", tok} }

// object decodes a JSON object.
func object(t testing.TB, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not a JSON object: %v: %s", err, b)
	}
	return m
}

// create posts one submission as the user and returns its token.
func (c *j0face) create(query string, sub map[string]any) string {
	c.t.Helper()
	code, _, b := c.do("POST", "/submissions"+query, sub, as(c.user)...)
	if code != http.StatusCreated {
		c.t.Fatalf("POST /submissions%s: %d %s", query, code, b)
	}
	return object(c.t, b)["token"].(string)
}

// wait polls the submission until its status is past Processing, then reads it with
// query.
func (c *j0face) wait(token, query string) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		code, _, b := c.do("GET", "/submissions/"+token+"?fields=status_id", nil, as(c.user)...)
		if code != http.StatusOK {
			c.t.Fatalf("GET /submissions/%s: %d %s", token, code, b)
		}
		if statusID(object(c.t, b)) > 2 {
			code, _, b = c.do("GET", "/submissions/"+token+query, nil, as(c.user)...)
			if code != http.StatusOK {
				c.t.Fatalf("GET /submissions/%s%s: %d %s", token, query, code, b)
			}
			return object(c.t, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	_, _, b := c.do("GET", "/submissions/"+token+"?fields=*&base64_encoded=true", nil, as(c.user)...)
	c.t.Fatalf("submission %s not ended in 3 minutes: %s", token, b)
	return nil
}

// statusID is a rendered submission's status id.
func statusID(m map[string]any) int {
	if st, ok := m["status"].(map[string]any); ok {
		return int(st["id"].(float64))
	}
	return int(m["status_id"].(float64))
}
