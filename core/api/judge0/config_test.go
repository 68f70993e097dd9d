package judge0

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestConfigValidateNamesTheKey(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"default", func(*Config) {}, ""},
		{"root", func(c *Config) { c.Prefix = "/" }, ""},
		{"relative", func(c *Config) { c.Prefix = "judge0" }, "judge0.prefix"},
		{"trailing slash", func(c *Config) { c.Prefix = "/judge0/" }, "judge0.prefix"},
		{"under oj's routes", func(c *Config) { c.Prefix = "/api/judge0" }, "judge0.prefix"},
		{"pattern", func(c *Config) { c.Prefix = "/{x}" }, "judge0.prefix"},
		{"no wait", func(c *Config) { c.WaitTimeout = 0 }, "judge0.wait_timeout"},
		{"origin with a path", func(c *Config) { c.CORSAllowedOrigins = []string{"https://a.example/x"} }, "judge0.cors_allowed_origins"},
		{"any origin", func(c *Config) { c.CORSAllowedOrigins = []string{"*"} }, ""},
	} {
		cfg := DefaultConfig()
		c.edit(&cfg)
		err := cfg.Validate()
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestCORSNamesTheHeadersOnlyForAllowedOrigins(t *testing.T) {
	f := &Face{cfg: Config{CORSAllowedOrigins: []string{"https://ide.example"}}}
	h := f.cors(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	pre := func(origin string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("OPTIONS", "/submissions", nil)
		r.Header.Set("Origin", origin)
		r.Header.Set("Access-Control-Request-Method", "POST")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := pre("https://ide.example")
	if w.Code != 204 || w.Header().Get("Access-Control-Allow-Headers") != corsHeaders ||
		w.Header().Get("Access-Control-Allow-Origin") != "https://ide.example" {
		t.Fatalf("allowed preflight: %d %v", w.Code, w.Header())
	}
	if w := pre("https://other.example"); w.Header().Get("Access-Control-Allow-Origin") != "" || w.Header().Get("Access-Control-Allow-Headers") != "" {
		t.Fatalf("other origin: %v", w.Header())
	}
	r := httptest.NewRequest("GET", "/statuses", nil)
	r.Header.Set("Origin", "https://ide.example")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	if rec.Code != http.StatusTeapot || rec.Header().Get("Access-Control-Allow-Origin") != "https://ide.example" {
		t.Fatalf("simple request: %d %v", rec.Code, rec.Header())
	}
}
