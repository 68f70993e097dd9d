package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"oj/core/store"
	"oj/core/testenv"
)

// A primary and a streaming standby on 127.0.0.1, and oj's pool on a multi-host URL
// with target_session_attrs=read-write. The primary turns read-only under the pool's
// connections (as a demoted primary does): the write fails with SQLSTATE 25006 and that
// connection is closed, not kept. The primary stops and the standby is promoted: the
// pool's next connection finds the new primary, with the rows the old one committed.
func TestPoolFindsThePromotedStandby(t *testing.T) {
	t.Parallel()
	began := time.Now()
	ctx := context.Background()
	pair := testenv.StartPostgresPair(t)
	primary, standby := pair.Primary, pair.Standby
	url := pair.URL()
	cfg := store.DefaultPoolConfig()
	cfg.URL, cfg.MaxConns = url, 4
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	metrics := store.NewPoolMetrics(nil)
	db, err := store.NewPool(ctx, cfg, metrics)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	insert := func(ctx context.Context, x int) (port int, err error) {
		err = db.QueryRow(ctx, "INSERT INTO t VALUES ($1) RETURNING inet_server_port()", x).Scan(&port)
		return port, err
	}
	if _, err := db.Exec(ctx, "CREATE TABLE t (x int)"); err != nil {
		t.Fatal(err)
	}
	if port, err := insert(ctx, 1); err != nil || port != primary.Port {
		t.Fatalf("first insert: port %d, %v; want the primary's %d", port, err, primary.Port)
	}

	// The primary refuses writes from now on, under connections the pool holds.
	direct, err := pgxpool.New(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", primary.Port))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := direct.Exec(ctx, "ALTER SYSTEM SET default_transaction_read_only = on"); err != nil {
		t.Fatal(err)
	}
	if _, err := direct.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		t.Fatal(err)
	}
	direct.Close()
	before := db.Stat().TotalConns()
	testenv.WaitFor(t, 10*time.Second, "a read-only error from the old primary", func() error {
		_, err := insert(ctx, 2)
		if store.IsReadOnly(err) {
			return nil
		}
		return fmt.Errorf("insert: %v", err)
	})
	if n := testutil.ToFloat64(metrics.ReadOnlyDrops); n < 1 {
		t.Errorf("oj_postgres_readonly_drops_total = %v after a read-only error", n)
	}
	testenv.WaitFor(t, 5*time.Second, "the read-only connection gone from the pool", func() error {
		if after := db.Stat().TotalConns(); after >= before {
			return fmt.Errorf("%d connections, %d before", after, before)
		}
		return nil
	})

	// Failover: stop the primary (fast: it sends the standby all it has first) and promote.
	primary.Stop("fast")
	standby.Promote()
	promoted := time.Now()
	tries := 0
	var port int
	testenv.WaitFor(t, 30*time.Second, "a write on the promoted standby", func() error {
		tries++
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		port, err = insert(ctx, 3)
		return err
	})
	if port != standby.Port {
		t.Fatalf("the write after the failover went to port %d, want the standby's %d", port, standby.Port)
	}
	var n int
	if err := db.QueryRow(ctx, "SELECT count(*) FROM t WHERE x = 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the row the old primary committed: %d, %v", n, err)
	}
	var inRecovery bool
	if err := db.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&inRecovery); err != nil || inRecovery {
		t.Fatalf("pg_is_in_recovery on the pool's server: %v %v", inRecovery, err)
	}
	t.Logf("writes reached the promoted standby %s after promotion (%d tries); whole test %s",
		time.Since(promoted).Round(time.Millisecond), tries, time.Since(began).Round(time.Millisecond))
}
