package judge0

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Config is the Judge0 face (key "judge0" of ojd.yaml).
type Config struct {
	// Enabled serves the face; false turns it off (the one key to change).
	Enabled bool `mapstructure:"enabled"`
	// Prefix is where the face is mounted: "/judge0" by default, "/" for the root (then
	// a Judge0 client's base URL is the API's own).
	Prefix string `mapstructure:"prefix"`
	// AllowUnauthenticatedReads lets a request without credentials read a submission by
	// its token (a random capability, as Judge0's browser IDE reads it) and the
	// languages, statuses, about and config_info. Creating submissions always needs a
	// token.
	AllowUnauthenticatedReads bool `mapstructure:"allow_unauthenticated_reads"`
	// CORSAllowedOrigins are the browser origins allowed to call the face ("*" any);
	// empty: no CORS headers.
	CORSAllowedOrigins []string `mapstructure:"cors_allowed_origins"`
	// WaitTimeout bounds POST /submissions?wait=true: past it the answer is the
	// submission as it is then (still queued or running), with its token.
	WaitTimeout time.Duration `mapstructure:"wait_timeout"`
}

// DefaultConfig: on, under /judge0, reads by token open, no CORS, waits of 15 s.
func DefaultConfig() Config {
	return Config{Enabled: true, Prefix: "/judge0", AllowUnauthenticatedReads: true,
		CORSAllowedOrigins: []string{}, WaitTimeout: 15 * time.Second}
}

// Validate names the first bad key.
func (c Config) Validate() error {
	p := c.Prefix
	switch {
	case !strings.HasPrefix(p, "/"):
		return fmt.Errorf("judge0.prefix: %q must start with /", p)
	case p != "/" && strings.HasSuffix(p, "/"):
		return fmt.Errorf("judge0.prefix: %q must not end with / (the root is just /)", p)
	case strings.ContainsAny(p, " {}?#*"):
		return fmt.Errorf("judge0.prefix: %q is not a plain path", p)
	case p == "/api" || strings.HasPrefix(p, "/api/") || p == "/admin" || strings.HasPrefix(p, "/admin/"):
		return fmt.Errorf("judge0.prefix: %q is under oj's own routes", p)
	case c.WaitTimeout <= 0 || c.WaitTimeout > 5*time.Minute:
		return fmt.Errorf("judge0.wait_timeout: %v not in (0, 5m]", c.WaitTimeout)
	}
	for _, o := range c.CORSAllowedOrigins {
		if o == "*" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
			return fmt.Errorf("judge0.cors_allowed_origins: %q is not an origin (scheme://host[:port]) or *", o)
		}
	}
	return nil
}
