package stream

import (
	"errors"
	"fmt"
	"net"
	"strings"
)

// Modes of redis.mode. The mode is always explicit: a list of addresses alone never
// decides between a Cluster and one node (go-redis's NewUniversalClient guesses from the
// number of addresses, and two plain nodes would become a "cluster").
const (
	ModeStandalone = "standalone"
	ModeSentinel   = "sentinel"
	ModeCluster    = "cluster"
)

// DefaultAddr is redis.addr's default: a Redis on this machine.
const DefaultAddr = "127.0.0.1:6379"

// Config says where Redis is and how to reach it: the redis section of ojd.yaml. Every
// daemon builds its one client from it (NewClient).
type Config struct {
	// Mode is standalone, sentinel or cluster.
	Mode string `mapstructure:"mode"`
	// Addr is the node of standalone mode (kept from before Addrs existed).
	Addr string `mapstructure:"addr"`
	// Addrs are the node (standalone: at most one), the Sentinels (sentinel) or the seed
	// nodes (cluster).
	Addrs []string `mapstructure:"addrs"`
	// MasterName is the name the Sentinels monitor the master under (sentinel mode only).
	MasterName string `mapstructure:"master_name"`
	// SentinelUsername and SentinelPassword authenticate to the Sentinels themselves.
	SentinelUsername string `mapstructure:"sentinel_username"`
	SentinelPassword string `mapstructure:"sentinel_password"`
	// Username and Password authenticate to the data nodes (an ACL user, or only the
	// password for requirepass).
	Username string `mapstructure:"username"`
	Password string `mapstructure:"password"`
	// DB is the database number; a Cluster has only 0.
	DB        int       `mapstructure:"db"`
	KeyPrefix string    `mapstructure:"key_prefix"`
	TLS       TLSConfig `mapstructure:"tls"`
}

// TLSConfig turns on TLS to every node (and to the Sentinels). The server's certificate
// is always verified: against CAFile, or the system's roots when CAFile is empty.
type TLSConfig struct {
	Enabled bool `mapstructure:"enabled"`
	// CAFile holds the PEM certificates that may sign the servers' certificates.
	CAFile string `mapstructure:"ca_file"`
	// CertFile and KeyFile are a client certificate, for servers that ask for one
	// (tls-auth-clients yes); both or neither.
	CertFile string `mapstructure:"cert_file"`
	KeyFile  string `mapstructure:"key_file"`
	// ServerName is the name the servers' certificates must carry; empty: each address's
	// host.
	ServerName string `mapstructure:"server_name"`
}

// DefaultConfig is one Redis on this machine, keys under "oj".
func DefaultConfig() Config {
	return Config{Mode: ModeStandalone, Addr: DefaultAddr, KeyPrefix: "oj"}
}

// Validate refuses a configuration that is ambiguous or unsafe, naming the key. It does
// not read the TLS files: NewClient does, at start.
func (c Config) Validate() error {
	if c.KeyPrefix == "" || strings.ContainsAny(c.KeyPrefix, "{} ") {
		// A brace in the prefix would become the hash tag and put every lane in one slot.
		return errors.New("redis.key_prefix: must be non-empty without braces or spaces")
	}
	for i, a := range c.Addrs {
		if err := checkAddr(a); err != nil {
			return fmt.Errorf("redis.addrs[%d]: %w", i, err)
		}
	}
	switch c.Mode {
	case ModeStandalone:
		if err := c.validateStandalone(); err != nil {
			return err
		}
	case ModeSentinel, ModeCluster:
		if err := c.validateMany(); err != nil {
			return err
		}
	default:
		return fmt.Errorf("redis.mode: %q (want standalone, sentinel or cluster)", c.Mode)
	}
	if c.Password == "" && c.Username != "" {
		return errors.New("redis.password: empty while redis.username is set (an ACL user needs its password)")
	}
	if c.SentinelPassword == "" && c.SentinelUsername != "" {
		return errors.New("redis.sentinel_password: empty while redis.sentinel_username is set")
	}
	return c.TLS.validate()
}

func (c Config) validateStandalone() error {
	switch {
	case len(c.Addrs) > 1:
		return fmt.Errorf("redis.addrs: %d addresses in standalone mode, which talks to one node "+
			"(set redis.mode to sentinel or cluster, or keep one address)", len(c.Addrs))
	case len(c.Addrs) == 1 && c.Addr != "" && c.Addr != DefaultAddr && c.Addr != c.Addrs[0]:
		return fmt.Errorf("redis.addr (%s) and redis.addrs (%s) name different nodes: set one of them", c.Addr, c.Addrs[0])
	case len(c.Addrs) == 0 && c.Addr == "":
		return errors.New("redis.addr: empty")
	case c.MasterName != "":
		return errors.New("redis.master_name: set in standalone mode (it is for redis.mode: sentinel)")
	case c.SentinelUsername != "" || c.SentinelPassword != "":
		return errors.New("redis.sentinel_username/sentinel_password: set in standalone mode (they are for redis.mode: sentinel)")
	}
	if len(c.Addrs) == 0 {
		if err := checkAddr(c.Addr); err != nil {
			return fmt.Errorf("redis.addr: %w", err)
		}
	}
	return nil
}

// validateMany checks sentinel and cluster modes, which take their addresses from
// redis.addrs only.
func (c Config) validateMany() error {
	what := "the Sentinels' addresses"
	if c.Mode == ModeCluster {
		what = "seed node addresses"
	}
	switch {
	case len(c.Addrs) == 0:
		return fmt.Errorf("redis.addrs: empty; %s mode needs %s", c.Mode, what)
	case c.Addr != "" && c.Addr != DefaultAddr:
		return fmt.Errorf("redis.addr: set in %s mode, which reads redis.addrs (%s) only", c.Mode, what)
	}
	if c.Mode == ModeSentinel {
		if c.MasterName == "" {
			return errors.New("redis.master_name: empty; sentinel mode needs the name the Sentinels monitor the master under")
		}
		return nil
	}
	switch {
	case c.MasterName != "":
		return errors.New("redis.master_name: set in cluster mode (it is for redis.mode: sentinel)")
	case c.SentinelUsername != "" || c.SentinelPassword != "":
		return errors.New("redis.sentinel_username/sentinel_password: set in cluster mode (they are for redis.mode: sentinel)")
	case c.DB != 0:
		return fmt.Errorf("redis.db: %d, but a Redis Cluster has only database 0", c.DB)
	}
	return nil
}

func (t TLSConfig) validate() error {
	if !t.Enabled {
		for key, v := range map[string]string{"ca_file": t.CAFile, "cert_file": t.CertFile, "key_file": t.KeyFile, "server_name": t.ServerName} {
			if v != "" {
				// Half a TLS setup must not silently run in clear text.
				return fmt.Errorf("redis.tls.%s: set while redis.tls.enabled is false (enable TLS or remove it)", key)
			}
		}
		return nil
	}
	if (t.CertFile == "") != (t.KeyFile == "") {
		return errors.New("redis.tls.cert_file and redis.tls.key_file: set both (a client certificate) or neither")
	}
	return nil
}

// nodes are the addresses the client dials first: the node, the Sentinels or the seeds.
func (c Config) nodes() []string {
	if c.Mode == ModeStandalone && len(c.Addrs) == 0 {
		return []string{c.Addr}
	}
	return c.Addrs
}

func checkAddr(a string) error {
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return fmt.Errorf("%q is not host:port", a)
	}
	if host == "" || port == "" {
		return fmt.Errorf("%q is not host:port", a)
	}
	return nil
}
