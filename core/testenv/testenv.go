// Package testenv gives tests real PostgreSQL and Redis, started by the project's own
// scripts (scripts/test.sh for the shared instances, scripts/stack.sh for dedicated ones),
// isolated cheaply: a schema per test, a key prefix per test. It is imported by tests only.
package testenv

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // driver for the migrations
	"github.com/redis/go-redis/v9"

	"oj/core/stream"
	"oj/sql/migrations"
)

// RandomName returns prefix plus 8 random hex digits.
func RandomName(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

func need(t testing.TB, name string) string {
	v := os.Getenv(name)
	if v == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set: run the tests with `make test`", name)
		}
		t.Skipf("%s is not set: run the tests with `make test` (it starts PostgreSQL and Redis)", name)
	}
	return v
}

// PostgresURL is the shared test PostgreSQL.
func PostgresURL(t testing.TB) string { return need(t, "OJ_TEST_POSTGRES_URL") }

// RedisAddr is the shared test Redis.
func RedisAddr(t testing.TB) string { return need(t, "OJ_TEST_REDIS_ADDR") }

// Schema creates a fresh schema on the PostgreSQL at baseURL, migrates it, and returns
// a URL whose connections use it. The schema is dropped when the test ends.
func Schema(t testing.TB, baseURL string) string {
	t.Helper()
	ctx := context.Background()
	schema := RandomName("t_")
	admin, err := sql.Open("pgx", baseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	scoped := u.String()
	db, err := sql.Open("pgx", scoped)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := migrations.Up(ctx, db); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	t.Cleanup(func() {
		admin, err := sql.Open("pgx", baseURL)
		if err != nil {
			return
		}
		defer admin.Close()
		_, _ = admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
	})
	return scoped
}

// Pool opens a pool on url, closed when the test ends.
func Pool(t testing.TB, url string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 16
	p, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// DB is a pool on a fresh migrated schema of the shared test PostgreSQL.
func DB(t testing.TB) *pgxpool.Pool { return Pool(t, Schema(t, PostgresURL(t))) }

// Streams returns streams on the Redis at addr under a fresh key prefix; the keys are
// deleted when the test ends.
func Streams(t testing.TB, addr string) *stream.Streams {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	prefix := RandomName("t")
	t.Cleanup(func() {
		ctx := context.Background()
		iter := rdb.Scan(ctx, 0, prefix+":*", 1000).Iterator()
		for iter.Next(ctx) {
			rdb.Del(ctx, iter.Val())
		}
		_ = rdb.Close()
	})
	return stream.New(rdb, stream.Keys{Prefix: prefix})
}

// Stack is a dedicated PostgreSQL + Redis pair for tests that stop, flush or restart
// them.
type Stack struct {
	t            testing.TB
	script, dir  string
	pauseCleanup bool
	PostgresURL  string
	RedisAddr    string
}

// NewStack starts a dedicated stack with scripts/stack.sh; it is stopped and removed
// when the test ends.
func NewStack(t testing.TB) *Stack {
	t.Helper()
	script := need(t, "OJ_TEST_STACK_SCRIPT")
	dir, err := os.MkdirTemp("", "oj-stack-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := &Stack{t: t, script: script, dir: dir}
	t.Cleanup(func() {
		s.run("stop")
		os.RemoveAll(dir)
	})
	s.run("start", "--pg-port", "auto", "--redis-port", "auto")
	f, err := os.Open(filepath.Join(dir, "stack.env"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "OJ_POSTGRES_URL":
			s.PostgresURL = v
		case "OJ_REDIS_ADDR":
			s.RedisAddr = v
		}
	}
	return s
}

func (s *Stack) run(args ...string) {
	s.t.Helper()
	args = append([]string{s.script, args[0], "--dir", s.dir}, args[1:]...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "bash", args...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("stack.sh %v: %v\n%s", args[1:], err, out)
	}
}

// StopPostgres stops the stack's PostgreSQL, keeping its data.
func (s *Stack) StopPostgres() { s.run("pg-stop") }

// StartPostgres starts it again on the same port.
func (s *Stack) StartPostgres() { s.run("pg-start") }

// PausePostgres freezes the stack's PostgreSQL (SIGSTOP to the postmaster and its
// processes): statements and new connections hang instead of failing, as with a server
// that stopped answering. ResumePostgres lets it go on; it also runs when the test ends.
func (s *Stack) PausePostgres() {
	s.t.Helper()
	if !s.pauseCleanup {
		s.pauseCleanup = true
		s.t.Cleanup(s.ResumePostgres) // before the stack's own cleanup stops it
	}
	s.signalPostgres(syscall.SIGSTOP)
}

// ResumePostgres undoes PausePostgres.
func (s *Stack) ResumePostgres() { s.signalPostgres(syscall.SIGCONT) }

func (s *Stack) signalPostgres(sig syscall.Signal) {
	s.t.Helper()
	b, err := os.ReadFile(filepath.Join(s.dir, "pg", "postmaster.pid"))
	if err != nil {
		s.t.Fatalf("postgres pid: %v", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		s.t.Fatalf("postgres pid %q: %v", first, err)
	}
	for _, p := range append([]int{pid}, childrenOf(pid)...) {
		if err := syscall.Kill(p, sig); err != nil && err != syscall.ESRCH {
			s.t.Fatalf("signal %v to postgres process %d: %v", sig, p, err)
		}
	}
}

// childrenOf lists the processes whose parent is ppid, from /proc.
func childrenOf(ppid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		rest := string(b[bytes.LastIndexByte(b, ')')+1:])
		fields := strings.Fields(rest)
		if len(fields) < 2 {
			continue
		}
		if p, err := strconv.Atoi(fields[1]); err == nil && p == ppid {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			out = append(out, pid)
		}
	}
	return out
}
