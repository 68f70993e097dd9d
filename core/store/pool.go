package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// PoolConfig says where PostgreSQL is and bounds the pool: the postgres section of
// ojd.yaml. URL may name several hosts (postgres://u@h1:5432,h2:5432/oj?
// target_session_attrs=read-write): a new connection then goes to whichever of them
// is the primary at that moment.
type PoolConfig struct {
	URL      string `mapstructure:"url"`
	MaxConns int    `mapstructure:"max_conns"`
	// MaxConnLifetime closes a connection this old once it is idle, so that after a
	// failover or a switchover the pool does not keep talking to a server that is no
	// longer the primary for longer than that (some jitter spreads the closes).
	MaxConnLifetime time.Duration `mapstructure:"max_conn_lifetime"`
	// MaxConnIdleTime closes a connection idle this long.
	MaxConnIdleTime time.Duration `mapstructure:"max_conn_idle_time"`
	// HealthCheckPeriod is how often idle connections are checked (and the closed ones
	// dropped).
	HealthCheckPeriod time.Duration `mapstructure:"health_check_period"`
}

// DefaultPoolConfig is a PostgreSQL on this machine.
func DefaultPoolConfig() PoolConfig {
	return PoolConfig{URL: "postgres://oj@127.0.0.1:5432/oj?sslmode=disable", MaxConns: 32,
		MaxConnLifetime: 30 * time.Minute, MaxConnIdleTime: 5 * time.Minute, HealthCheckPeriod: 15 * time.Second}
}

// Validate names the bad key. A URL that names several hosts must say
// target_session_attrs=read-write (or primary): without it a connection may land on a
// standby, and every write on it fails.
func (c PoolConfig) Validate() error {
	switch {
	case c.URL == "":
		return errors.New("postgres.url: empty")
	case c.MaxConns < 2:
		return errors.New("postgres.max_conns: must be at least 2")
	case c.MaxConnLifetime < time.Minute:
		return fmt.Errorf("postgres.max_conn_lifetime: %s (want at least 1m)", c.MaxConnLifetime)
	case c.MaxConnIdleTime < time.Second:
		return fmt.Errorf("postgres.max_conn_idle_time: %s (want at least 1s)", c.MaxConnIdleTime)
	case c.HealthCheckPeriod < time.Second || c.HealthCheckPeriod > c.MaxConnLifetime:
		return fmt.Errorf("postgres.health_check_period: %s (want from 1s up to postgres.max_conn_lifetime)", c.HealthCheckPeriod)
	}
	pc, err := pgconn.ParseConfig(c.URL)
	if err != nil {
		return fmt.Errorf("postgres.url: %w", err) // pgconn masks the password
	}
	if hosts := hostsOf(pc); len(hosts) > 1 && !writesOnly(pc) {
		return fmt.Errorf("postgres.url: names %d hosts (%s) without target_session_attrs=read-write: "+
			"a connection could land on a standby; add ?target_session_attrs=read-write", len(hosts), strings.Join(hosts, ", "))
	}
	return nil
}

// hostsOf lists the distinct host:port pairs a connection config may try (the fallbacks
// also repeat a host for sslmode=prefer's second try).
func hostsOf(pc *pgconn.Config) []string {
	seen := map[string]bool{}
	var out []string
	add := func(host string, port uint16) {
		hp := fmt.Sprintf("%s:%d", host, port)
		if !seen[hp] {
			seen[hp] = true
			out = append(out, hp)
		}
	}
	add(pc.Host, pc.Port)
	for _, f := range pc.Fallbacks {
		add(f.Host, f.Port)
	}
	return out
}

// writesOnly reports whether pc accepts only a server that takes writes.
func writesOnly(pc *pgconn.Config) bool {
	if pc.ValidateConnect == nil {
		return false
	}
	p := reflect.ValueOf(pc.ValidateConnect).Pointer()
	return p == reflect.ValueOf(pgconn.ValidateConnectTargetSessionAttrsReadWrite).Pointer() ||
		p == reflect.ValueOf(pgconn.ValidateConnectTargetSessionAttrsPrimary).Pointer()
}

// PoolMetrics count what the pool did about a changing primary.
type PoolMetrics struct {
	ReadOnlyDrops prometheus.Counter
}

// NewPoolMetrics registers the pool's metrics with reg (nil: not registered).
func NewPoolMetrics(reg prometheus.Registerer) *PoolMetrics {
	m := &PoolMetrics{ReadOnlyDrops: prometheus.NewCounter(prometheus.CounterOpts{
		Name: "oj_postgres_readonly_drops_total",
		Help: "Connections closed because the server answered that it is read-only (a standby, or a demoted primary).",
	})}
	if reg != nil {
		reg.MustRegister(m.ReadOnlyDrops)
	}
	return m
}

// readOnlyCode is SQLSTATE 25006, read_only_sql_transaction: "cannot execute INSERT in
// a read-only transaction", "cannot execute LISTEN during recovery".
const readOnlyCode = "25006"

// IsReadOnly reports whether err says the server would not take a write.
func IsReadOnly(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == readOnlyCode
}

// NewPool opens the pool (lazily: PostgreSQL need not be up yet). A connection that
// meets a read-only error is closed at once rather than returned to the pool, so the
// next connection is dialled afresh and, through target_session_attrs=read-write, finds
// the primary; the caller's own retry then succeeds there. m may be nil.
func NewPool(ctx context.Context, c PoolConfig, m *PoolMetrics) (*pgxpool.Pool, error) {
	pc, err := pgxpool.ParseConfig(c.URL)
	if err != nil {
		return nil, fmt.Errorf("postgres.url: %w", err)
	}
	pc.MaxConns = int32(c.MaxConns)
	pc.MaxConnLifetime = c.MaxConnLifetime
	pc.MaxConnLifetimeJitter = c.MaxConnLifetime / 10
	pc.MaxConnIdleTime = c.MaxConnIdleTime
	pc.HealthCheckPeriod = c.HealthCheckPeriod
	DropOnReadOnly(pc.ConnConfig.Config.OnPgError, &pc.ConnConfig.Config, m)
	db, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return db, nil
}

// DropOnReadOnly makes cc's connections close themselves on a read-only error, and
// otherwise do what prev (the previous handler; nil: close on FATAL) decides.
func DropOnReadOnly(prev pgconn.PgErrorHandler, cc *pgconn.Config, m *PoolMetrics) {
	cc.OnPgError = func(conn *pgconn.PgConn, pe *pgconn.PgError) bool {
		if pe.Code == readOnlyCode {
			if m != nil {
				m.ReadOnlyDrops.Inc()
			}
			return false
		}
		if prev != nil {
			return prev(conn, pe)
		}
		return !strings.EqualFold(pe.Severity, "FATAL")
	}
}
