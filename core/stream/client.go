package stream

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
)

// readTimeout bounds a reply's wait beyond a command's own block (XREADGROUP's BLOCK).
const readTimeout = 10 * time.Second

// NewClient builds the one Redis client of a process from cfg (validated already): a
// plain client for standalone, a Sentinel-backed failover client that follows the
// master the Sentinels name, or a Cluster client. It never routes reads to replicas:
// every read of a stream or a group must see the master's latest writes. The TLS files
// are loaded here, so a file that does not load stops the start with its key named.
// Errors that reach oj are counted in m by kind (nil m: not counted). CLIENT SETINFO is
// not sent: Redis 7.0 does not know it, and an ACL user need not be allowed it.
func NewClient(cfg Config, m *ClientMetrics) (redis.UniversalClient, error) {
	tlsCfg, err := cfg.TLS.load()
	if err != nil {
		return nil, err
	}
	var rdb redis.UniversalClient
	switch cfg.Mode {
	case ModeStandalone:
		rdb = redis.NewClient(&redis.Options{Addr: cfg.nodes()[0], Username: cfg.Username, Password: cfg.Password,
			DB: cfg.DB, TLSConfig: tlsCfg, ReadTimeout: readTimeout, DisableIdentity: true})
	case ModeSentinel:
		rdb = redis.NewFailoverClient(&redis.FailoverOptions{MasterName: cfg.MasterName, SentinelAddrs: cfg.Addrs,
			SentinelUsername: cfg.SentinelUsername, SentinelPassword: cfg.SentinelPassword,
			Username: cfg.Username, Password: cfg.Password, DB: cfg.DB, TLSConfig: tlsCfg, ReadTimeout: readTimeout, DisableIdentity: true})
	case ModeCluster:
		rdb = redis.NewClusterClient(&redis.ClusterOptions{Addrs: cfg.Addrs, Username: cfg.Username,
			Password: cfg.Password, TLSConfig: tlsCfg, ReadTimeout: readTimeout, DisableIdentity: true})
	default:
		return nil, fmt.Errorf("redis.mode: %q (want standalone, sentinel or cluster)", cfg.Mode)
	}
	if m != nil {
		rdb.AddHook(errorHook{m: m})
	}
	return rdb, nil
}

// load builds the tls.Config, or nil without TLS. Verification is always on: there is
// no setting to skip it.
func (t TLSConfig) load() (*tls.Config, error) {
	if !t.Enabled {
		return nil, nil
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("redis.tls.ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("redis.tls.ca_file: %s holds no PEM certificate", t.CAFile)
		}
		c.RootCAs = pool
	}
	if t.CertFile != "" {
		pair, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("redis.tls.cert_file/key_file: %w", err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}
