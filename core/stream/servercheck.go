package stream

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// CheckServer reads the settings oj relies on from every master and returns a warning,
// naming the setting, for each one that is off:
//
//   - appendonly yes: without the AOF a restarted node comes back with the stream as of
//     its last snapshot, or empty; oj survives it (the reconciler re-drives from
//     PostgreSQL) but every submission since is delayed by a reconcile pass.
//   - maxmemory-policy noeviction: any other policy may evict a lane's stream or its
//     consumer group under memory pressure, silently.
//
// An ACL user is rightly not allowed CONFIG: the refusal is then one warning saying the
// settings could not be checked. err is set only when Redis could not be asked at all.
func CheckServer(ctx context.Context, rdb redis.UniversalClient) (warnings []string, err error) {
	var mu sync.Mutex
	refused := false
	check := func(ctx context.Context, node *redis.Client) error {
		addr := node.Options().Addr
		if addr == "FailoverClient" { // go-redis's name for the master the Sentinels name
			addr = "the master"
		}
		vals := map[string]string{}
		var err error
		for _, key := range []string{"appendonly", "maxmemory-policy"} {
			var kv map[string]string
			if kv, err = node.ConfigGet(ctx, key).Result(); err != nil {
				break
			}
			vals[key] = kv[key]
		}
		if err != nil {
			if ErrorKind(err) == KindAuth || strings.Contains(err.Error(), "unknown command") {
				mu.Lock()
				defer mu.Unlock()
				if !refused {
					refused = true
					warnings = append(warnings, fmt.Sprintf("cannot check Redis appendonly and maxmemory-policy on %s: "+
						"CONFIG GET refused (%v); make sure of appendonly yes and maxmemory-policy noeviction by hand", addr, err))
				}
				return nil
			}
			return fmt.Errorf("config get on %s: %w", addr, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if v := vals["appendonly"]; v != "yes" {
			warnings = append(warnings, fmt.Sprintf("Redis %s has appendonly %s: a restart loses the streams' recent "+
				"entries and oj re-drives them from PostgreSQL with a delay; set appendonly yes", addr, v))
		}
		if v := vals["maxmemory-policy"]; v != "noeviction" {
			warnings = append(warnings, fmt.Sprintf("Redis %s has maxmemory-policy %s: under memory pressure it may evict "+
				"a lane's stream or consumer group; set maxmemory-policy noeviction", addr, v))
		}
		return nil
	}
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, check)
	case *redis.Client:
		err = check(ctx, c)
	default:
		err = fmt.Errorf("check server: unknown client %T", rdb)
	}
	return warnings, err
}

// CheckReach pings Redis once and returns an error, naming the keys to fix, when the
// answer shows a configuration that waiting will not repair: a server certificate that
// does not verify against redis.tls.ca_file or redis.tls.server_name, or credentials
// Redis refuses. Any other failure (Redis not up yet, a failover under way) is not an
// error here: the daemons retry, and a unit may start before its Redis.
func CheckReach(ctx context.Context, rdb redis.UniversalClient) error {
	err := rdb.Ping(ctx).Err()
	if err == nil {
		return nil
	}
	var unknownCA x509.UnknownAuthorityError
	var badName x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	msg := err.Error()
	switch {
	case errors.As(err, &badName) || strings.Contains(msg, "x509: certificate is valid for") ||
		strings.Contains(msg, "x509: certificate is not valid for"):
		return fmt.Errorf("redis.tls.server_name: the server's certificate is not valid for the name oj checks (%v); "+
			"set redis.tls.server_name to a name the certificate carries", err)
	case errors.As(err, &unknownCA) || errors.As(err, &invalid) || errors.As(err, &verify) ||
		strings.Contains(msg, "x509:") || strings.Contains(msg, "tls: failed to verify"):
		return fmt.Errorf("redis.tls.ca_file: the server's certificate does not verify (%v); "+
			"redis.tls.ca_file must hold the CA that signed it", err)
	case strings.Contains(msg, "first record does not look like a TLS handshake"):
		return fmt.Errorf("redis.tls.enabled: the server does not speak TLS on this port (%v)", err)
	case strings.Contains(msg, "WRONGPASS") || strings.Contains(msg, "NOAUTH") || strings.Contains(msg, "invalid password"):
		return fmt.Errorf("redis.username/redis.password: Redis refuses them (%v)", err)
	}
	return nil
}
