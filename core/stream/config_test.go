package stream

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
)

// An ambiguous or unsafe Redis configuration stops the start with its key named; the
// safe ones of each mode pass.
func TestConfigValidate(t *testing.T) {
	with := func(f func(*Config)) Config {
		c := DefaultConfig()
		f(&c)
		return c
	}
	tests := []struct {
		name string
		cfg  Config
		want string // in the error; "": valid
	}{
		{"the default: one local node", DefaultConfig(), ""},
		{"standalone through addrs", with(func(c *Config) { c.Addrs = []string{"10.0.0.5:6379"} }), ""},
		{"standalone with two addresses", with(func(c *Config) { c.Addrs = []string{"a:1", "b:2"} }), "redis.addrs: 2 addresses in standalone mode"},
		{"addr and addrs disagree", with(func(c *Config) { c.Addr = "a:1"; c.Addrs = []string{"b:2"} }), "redis.addr (a:1) and redis.addrs (b:2)"},
		{"no address", with(func(c *Config) { c.Addr = "" }), "redis.addr: empty"},
		{"not host:port", with(func(c *Config) { c.Addr = "redis.local" }), "redis.addr: "},
		{"a bad seed", with(func(c *Config) { c.Mode = ModeCluster; c.Addrs = []string{"a:1", "b"} }), "redis.addrs[1]"},
		{"unknown mode", with(func(c *Config) { c.Mode = "replicated" }), "redis.mode: \"replicated\""},
		{"master name in standalone", with(func(c *Config) { c.MasterName = "oj" }), "redis.master_name: set in standalone mode"},
		{"sentinel", with(func(c *Config) {
			c.Mode, c.Addrs, c.MasterName = ModeSentinel, []string{"a:26379", "b:26379", "c:26379"}, "oj"
		}), ""},
		{"sentinel without a master name", with(func(c *Config) { c.Mode, c.Addrs = ModeSentinel, []string{"a:26379"} }), "redis.master_name: empty"},
		{"sentinel without sentinels", with(func(c *Config) { c.Mode, c.MasterName = ModeSentinel, "oj" }), "redis.addrs: empty; sentinel mode"},
		{"sentinel given a node in addr", with(func(c *Config) {
			c.Mode, c.Addrs, c.MasterName, c.Addr = ModeSentinel, []string{"a:26379"}, "oj", "m:6379"
		}), "redis.addr: set in sentinel mode"},
		{"cluster", with(func(c *Config) { c.Mode, c.Addrs = ModeCluster, []string{"a:7000", "b:7001"} }), ""},
		{"cluster with a db", with(func(c *Config) { c.Mode, c.Addrs, c.DB = ModeCluster, []string{"a:7000"}, 2 }), "redis.db: 2"},
		{"cluster with a master name", with(func(c *Config) { c.Mode, c.Addrs, c.MasterName = ModeCluster, []string{"a:7000"}, "oj" }), "redis.master_name: set in cluster mode"},
		{"sentinel password outside sentinel", with(func(c *Config) { c.SentinelPassword = "x" }), "redis.sentinel_username/sentinel_password"},
		{"ACL user without password", with(func(c *Config) { c.Username = "oj" }), "redis.password: empty while redis.username"},
		{"TLS file without TLS", with(func(c *Config) { c.TLS.CAFile = "/etc/oj/ca.pem" }), "redis.tls.ca_file: set while redis.tls.enabled is false"},
		{"client cert without key", with(func(c *Config) { c.TLS.Enabled = true; c.TLS.CertFile = "/c.pem" }), "redis.tls.cert_file and redis.tls.key_file"},
		{"TLS with system roots", with(func(c *Config) { c.TLS.Enabled = true }), ""},
		{"prefix with a brace", with(func(c *Config) { c.KeyPrefix = "o{j}" }), "redis.key_prefix"},
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
			}
		})
	}
}

// NewClient builds the client the mode names, never guessing from the addresses, and a
// TLS file that does not load stops it with its key named.
func TestNewClient(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tlsWith := func(f func(*TLSConfig)) Config {
		c := DefaultConfig()
		c.TLS.Enabled = true
		f(&c.TLS)
		return c
	}
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"missing CA file", tlsWith(func(t *TLSConfig) { t.CAFile = filepath.Join(dir, "none.pem") }), "redis.tls.ca_file: open"},
		{"CA file without a certificate", tlsWith(func(t *TLSConfig) { t.CAFile = notPEM }), "redis.tls.ca_file: " + notPEM + " holds no PEM certificate"},
		{"client key pair that does not load", tlsWith(func(t *TLSConfig) { t.CertFile, t.KeyFile = notPEM, notPEM }), "redis.tls.cert_file/key_file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewClient(tc.cfg, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("NewClient: %v, want an error with %q", err, tc.want)
			}
		})
	}
	modes := map[string]string{ModeStandalone: "*redis.Client", ModeSentinel: "*redis.Client", ModeCluster: "*redis.ClusterClient"}
	for mode, want := range modes {
		c := DefaultConfig()
		c.Mode = mode
		if mode != ModeStandalone {
			c.Addr, c.Addrs = "", []string{"127.0.0.1:1", "127.0.0.1:2"}
		}
		if mode == ModeSentinel {
			c.MasterName = "oj"
		}
		rdb, err := NewClient(c, nil)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if got := typeName(rdb); got != want {
			t.Errorf("%s mode built a %s, want %s", mode, got, want)
		}
		_ = rdb.Close()
	}
}

// Failover answers are told apart by kind, for the metric and for the loops' backoff; an
// empty answer or oj's own stop is no error at all.
func TestErrorKind(t *testing.T) {
	for _, tc := range []struct {
		err  error
		kind string
	}{
		{nil, ""},
		{redis.Nil, ""},
		{context.Canceled, ""},
		{replyError("READONLY You can't write against a read only replica."), KindReadOnly},
		{replyError("LOADING Redis is loading the dataset in memory"), KindLoading},
		{replyError("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."), KindMasterDown},
		{replyError("CLUSTERDOWN The cluster is down"), KindClusterDown},
		{replyError("TRYAGAIN Multiple keys request during rehashing of slot"), KindTryAgain},
		{replyError("MOVED 3999 127.0.0.1:6381"), KindMoved},
		{replyError("ASK 3999 127.0.0.1:6381"), KindAsk},
		{replyError("NOREPLICAS Not enough good replicas to write."), KindNoReplicas},
		{fmt.Errorf("read light: %w", replyError("NOGROUP No such key 'oj:{light}:jobs' or consumer group 'oj-workers'")), KindNoGroup},
		{replyError("NOPERM User oj has no permissions to run the 'config|get' command"), KindAuth},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), KindConnection},
		{io.EOF, KindConnection},
		{context.DeadlineExceeded, KindTimeout},
		{replyError("ERR unknown command"), KindOther},
	} {
		if got := ErrorKind(tc.err); got != tc.kind {
			t.Errorf("ErrorKind(%v) = %q, want %q", tc.err, got, tc.kind)
		}
	}
}

// replyError is an error reply as Redis words it.
type replyError string

func (e replyError) Error() string { return string(e) }
