package store

import (
	"strings"
	"testing"
	"time"
)

// A multi-host URL must ask for the primary; the pool's lifetimes are bounded.
func TestPoolConfigValidate(t *testing.T) {
	with := func(f func(*PoolConfig)) PoolConfig {
		c := DefaultPoolConfig()
		f(&c)
		return c
	}
	tests := []struct {
		name string
		cfg  PoolConfig
		want string
	}{
		{"the default", DefaultPoolConfig(), ""},
		{"two hosts asking for the primary", with(func(c *PoolConfig) {
			c.URL = "postgres://oj@10.0.0.1:5432,10.0.0.2:5432/oj?sslmode=disable&target_session_attrs=read-write"
		}), ""},
		{"two hosts asking for primary", with(func(c *PoolConfig) {
			c.URL = "postgres://oj@10.0.0.1,10.0.0.2/oj?target_session_attrs=primary"
		}), ""},
		{"two hosts taking any", with(func(c *PoolConfig) {
			c.URL = "postgres://oj@10.0.0.1:5432,10.0.0.2:5432/oj?sslmode=disable"
		}), "postgres.url: names 2 hosts (10.0.0.1:5432, 10.0.0.2:5432) without target_session_attrs=read-write"},
		{"two hosts, keyword form", with(func(c *PoolConfig) {
			c.URL = "host=10.0.0.1,10.0.0.2 user=oj dbname=oj target_session_attrs=any"
		}), "postgres.url: names 2 hosts"},
		{"one host with sslmode=prefer's second try", with(func(c *PoolConfig) { c.URL = "postgres://oj@10.0.0.1/oj" }), ""},
		{"empty", with(func(c *PoolConfig) { c.URL = "" }), "postgres.url: empty"},
		{"unparsable", with(func(c *PoolConfig) { c.URL = "postgres://oj:s3cret@h/oj?target_session_attrs=sometimes" }), "postgres.url: "},
		{"tiny pool", with(func(c *PoolConfig) { c.MaxConns = 1 }), "postgres.max_conns"},
		{"lifetime unbounded", with(func(c *PoolConfig) { c.MaxConnLifetime = 0 }), "postgres.max_conn_lifetime"},
		{"health check longer than a lifetime", with(func(c *PoolConfig) { c.HealthCheckPeriod = time.Hour }), "postgres.health_check_period"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("accepted, want an error with %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %q, want it to contain %q", err, tc.want)
			case err != nil && strings.Contains(err.Error(), "s3cret"):
				t.Fatalf("the error shows the password: %v", err)
			}
		})
	}
}
