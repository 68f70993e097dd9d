package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// PostgresNode is a PostgreSQL server a test runs on 127.0.0.1, as the postgres user
// when the test runs as root (as scripts/stack.sh does); it is stopped when the test ends.
type PostgresNode struct {
	t    testing.TB
	bin  string
	Data string
	Port int
}

// PostgresPair is a primary and a streaming standby of it (pg_basebackup -R).
type PostgresPair struct {
	Primary, Standby *PostgresNode
}

// URL is a multi-host URL naming the primary, then the standby, for the writable one.
func (p *PostgresPair) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/postgres?sslmode=disable&target_session_attrs=read-write",
		p.Primary.Port, p.Standby.Port)
}

// StartPostgresPair initdbs a primary, starts it, clones a standby from it and starts
// that. The binaries come from OJ_PG_BIN (default /usr/lib/postgresql/15/bin), which
// scripts/deps.sh installs.
func StartPostgresPair(t testing.TB) *PostgresPair {
	t.Helper()
	bin := os.Getenv("OJ_PG_BIN")
	if bin == "" {
		bin = "/usr/lib/postgresql/15/bin"
	}
	if _, err := os.Stat(filepath.Join(bin, "pg_ctl")); err != nil {
		t.Fatalf("PostgreSQL binaries not found in %s (OJ_PG_BIN): run scripts/deps.sh: %v", bin, err)
	}
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
	primary := &PostgresNode{t: t, bin: bin, Data: filepath.Join(dir, "primary"), Port: FreePort(t)}
	standby := &PostgresNode{t: t, bin: bin, Data: filepath.Join(dir, "standby"), Port: FreePort(t)}
	primary.Run("initdb", "-D", primary.Data, "--auth=trust", "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
	primary.Start()
	primary.Run("pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(primary.Port), "-U", "postgres",
		"-D", standby.Data, "-R", "-X", "stream", "--no-sync")
	standby.Start()
	return &PostgresPair{Primary: primary, Standby: standby}
}

func (n *PostgresNode) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(n.bin, name), args...)
	if os.Getuid() == 0 {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", "postgres", "--", filepath.Join(n.bin, name)}, args...)...)
	}
	cmd.Dir = "/"
	return cmd
}

// Run runs one of PostgreSQL's programs (initdb, pg_ctl, …) as the server's user.
func (n *PostgresNode) Run(name string, args ...string) {
	n.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := n.command(ctx, name, args...).CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(n.Data, "log"))
		n.t.Fatalf("%s %v: %v\n%s\nserver log:\n%s", name, args, err, out, log)
	}
}

// Start starts the server on its port.
func (n *PostgresNode) Start() {
	n.t.Helper()
	n.Run("pg_ctl", "start", "-w", "-D", n.Data, "-l", filepath.Join(n.Data, "log"), "-o",
		fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c wal_level=replica -c max_wal_senders=4", n.Port, n.Data))
	n.t.Cleanup(func() { n.Stop("immediate") })
}

// Stop stops the server (mode: smart, fast or immediate); a stopped one stays stopped.
func (n *PostgresNode) Stop(mode string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_ = n.command(ctx, "pg_ctl", "stop", "-w", "-m", mode, "-D", n.Data).Run()
}

// Promote makes a standby the primary and waits until it takes writes.
func (n *PostgresNode) Promote() { n.Run("pg_ctl", "promote", "-w", "-D", n.Data) }
