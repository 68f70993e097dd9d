package store_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"oj/core/store"
	"oj/core/testenv"
)

// pgNode is a PostgreSQL server a test runs on 127.0.0.1 (as the postgres user when the
// test runs as root, as scripts/stack.sh does).
type pgNode struct {
	t    *testing.T
	bin  string
	data string
	port int
}

func pgBin(t *testing.T) string {
	bin := os.Getenv("OJ_PG_BIN")
	if bin == "" {
		bin = "/usr/lib/postgresql/15/bin"
	}
	if _, err := os.Stat(filepath.Join(bin, "pg_ctl")); err != nil {
		t.Fatalf("PostgreSQL binaries not found in %s (OJ_PG_BIN): run scripts/deps.sh: %v", bin, err)
	}
	return bin
}

func (n *pgNode) run(name string, args ...string) {
	n.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(n.bin, name), args...)
	if os.Getuid() == 0 {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", "postgres", "--", filepath.Join(n.bin, name)}, args...)...)
	}
	cmd.Dir = "/"
	if out, err := cmd.CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(n.data, "log"))
		n.t.Fatalf("%s %v: %v\n%s\nserver log:\n%s", name, args, err, out, log)
	}
}

func (n *pgNode) start() {
	n.t.Helper()
	n.run("pg_ctl", "start", "-w", "-D", n.data, "-l", filepath.Join(n.data, "log"), "-o",
		fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c wal_level=replica -c max_wal_senders=4", n.port, n.data))
	n.t.Cleanup(func() { n.stop("immediate") })
}

func (n *pgNode) stop(mode string) {
	n.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := []string{"stop", "-w", "-m", mode, "-D", n.data}
	cmd := exec.CommandContext(ctx, filepath.Join(n.bin, "pg_ctl"), args...)
	if os.Getuid() == 0 {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", "postgres", "--", filepath.Join(n.bin, "pg_ctl")}, args...)...)
	}
	cmd.Dir = "/"
	_ = cmd.Run() // stopping a stopped server is fine
}

// pgDir makes a directory the postgres user may use.
func pgDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "oj-pgpair-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Getuid() == 0 {
		if out, err := exec.Command("chown", "postgres:postgres", dir).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	return dir
}

// A primary and a streaming standby on 127.0.0.1, and oj's pool on a multi-host URL
// with target_session_attrs=read-write. The primary turns read-only under the pool's
// connections (as a demoted primary does): the write fails with SQLSTATE 25006 and that
// connection is closed, not kept. The primary stops and the standby is promoted: the
// pool's next connection finds the new primary, with the rows the old one committed.
func TestPoolFindsThePromotedStandby(t *testing.T) {
	t.Parallel()
	began := time.Now()
	ctx := context.Background()
	bin, dir := pgBin(t), pgDir(t)
	primary := &pgNode{t: t, bin: bin, data: filepath.Join(dir, "primary"), port: testenv.FreePort(t)}
	standby := &pgNode{t: t, bin: bin, data: filepath.Join(dir, "standby"), port: testenv.FreePort(t)}
	primary.run("initdb", "-D", primary.data, "--auth=trust", "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
	primary.start()
	primary.run("pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(primary.port), "-U", "postgres",
		"-D", standby.data, "-R", "-X", "stream", "--no-sync")
	standby.start()

	url := fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/postgres?sslmode=disable&target_session_attrs=read-write",
		primary.port, standby.port)
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
	if port, err := insert(ctx, 1); err != nil || port != primary.port {
		t.Fatalf("first insert: port %d, %v; want the primary's %d", port, err, primary.port)
	}

	// The primary refuses writes from now on, under connections the pool holds.
	direct, err := pgxpool.New(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", primary.port))
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
	primary.stop("fast")
	standby.run("pg_ctl", "promote", "-w", "-D", standby.data)
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
	if port != standby.port {
		t.Fatalf("the write after the failover went to port %d, want the standby's %d", port, standby.port)
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
