package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"oj/core/api/client"
	"oj/core/judge/problem/problemtest"
	"oj/core/testenv"
	"oj/core/wire"
)

// ojd refuses to start against a Redis whose certificate it cannot verify, naming the
// key to fix, instead of running and failing every command.
func TestStartRefusesUnverifiedRedis(t *testing.T) {
	t.Parallel()
	certs := testenv.MakeCerts(t)
	node := testenv.StartRedis(t, 0, false, "port 0", "tls-port {port}",
		"tls-cert-file "+certs.Cert, "tls-key-file "+certs.Key, "tls-ca-cert-file "+certs.CA, "tls-auth-clients no")
	_, bin := buildOjd(t)
	for _, tc := range []struct{ name, tls, want string }{
		{"another CA", "    ca_file: " + certs.OtherCA + "\n", "redis.tls.ca_file: the server's certificate does not verify"},
		{"another name", "    ca_file: " + certs.CA + "\n    server_name: other.test\n", "redis.tls.server_name: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := filepath.Join(t.TempDir(), "ojd.yaml")
			yaml := "postgres:\n  url: postgres://oj@127.0.0.1:1/oj?sslmode=disable\nredis:\n  addr: " + node.Addr() +
				"\n  tls:\n    enabled: true\n" + tc.tls
			if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			out, err := exec.CommandContext(ctx, bin, "--config", cfg, "dispatcher", "--metrics-listen", "").CombinedOutput()
			if err == nil || ctx.Err() != nil || !strings.Contains(string(out), tc.want) {
				t.Fatalf("ojd dispatcher: %v, want a non-zero exit naming %q:\n%s", err, tc.want, out)
			}
		})
	}
}

// The real binary in redis.mode: sentinel judges a submission, the Redis master is
// SIGKILLed and the Sentinel promotes its replica, and the next submission is judged
// through the new master — nothing restarted, nothing re-entered.
func TestOjdAllThroughSentinelFailover(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the worker's sandbox needs root")
	}
	pair := testenv.StartSentinel(t)
	dir, bin := buildOjd(t)
	addr := freeAddr(t)
	cfg := filepath.Join(dir, "ojd.yaml")
	yaml := fmt.Sprintf(`postgres:
  url: %q
redis:
  mode: sentinel
  addr: ""
  addrs: [%s]
  master_name: oj
  key_prefix: %s
storage:
  fs:
    root: %s/objects
sandbox:
  cgroup_parent: %s
api:
  listen: %s
judge:
  work_dir: %s/work
  cache:
    dir: %s/cache
`, testenv.Schema(t, testenv.PostgresURL(t)), pair.Sentinel.Addr(), testenv.RandomName("t"), dir,
		testenv.RandomName("oj-ojd-test-"), addr, dir, dir)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	c, cmd, logs := startAll(t, bin, cfg, addr)
	judged := func(what string) time.Duration { return judgeAPlusB(t, c, logs, what) }
	before := judged("before the failover")
	pair.Master.Kill()
	after := judged("after the master's SIGKILL")
	t.Logf("judged in %s before the failover, %s from submit to verdict right after the master's SIGKILL",
		before.Round(time.Millisecond), after.Round(time.Millisecond))
	stopWithSIGTERM(t, cmd, "ojd all", logs)
}

// startAll creates an admin token, runs ojd all on cfg until ready, uploads the A+B
// problem and returns a client.
func startAll(t *testing.T, bin, cfg, addr string) (*client.Client, *exec.Cmd, *syncBuffer) {
	t.Helper()
	out, err := exec.Command(bin, "--config", cfg, "token", "create", "--name", "root", "--role", "admin").CombinedOutput()
	if err != nil {
		t.Fatalf("token create: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	token := lines[len(lines)-1]
	addrFile := filepath.Join(filepath.Dir(cfg), "api.addr")
	cmd := exec.Command(bin, "--config", cfg, "all", "--addr-file", addrFile)
	logs := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	testenv.WaitFor(t, time.Minute, "ojd ready", func() error {
		if b, err := os.ReadFile(addrFile); err != nil || strings.TrimSpace(string(b)) != addr {
			return fmt.Errorf("no %s yet:\n%s", addrFile, logs.String())
		}
		return nil
	})
	c := client.New("http://"+addr, token)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := c.PutProblem(ctx, "aplusb", bytes.NewReader(problemtest.Zip(problemtest.APlusB(
		"title: A+B\ntime_limit_ms: 1000\nmemory_limit_mb: 128\n")))); err != nil {
		t.Fatal(err)
	}
	return c, cmd, logs
}

// judgeAPlusB submits A+B in python3, as a client does: a refused submit (503 while
// PostgreSQL fails over) is sent again after a pause. It fails the test unless the
// submission finishes AC within a minute, and returns the time from the first try.
func judgeAPlusB(t *testing.T, c *client.Client, logs *syncBuffer, what string) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	began := time.Now()
	var id string
	for {
		res, err := c.Submit(ctx, wire.SubmitRequest{ProblemID: "aplusb", Language: "python3",
			Source: "a, b = map(int, input().split())\nprint(a + b)\n"}, "")
		if err == nil {
			id = res.ID()
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("%s: submit: %v\n%s", what, err, logs.String())
		}
		time.Sleep(250 * time.Millisecond)
	}
	for {
		sub, err := c.Submission(ctx, id)
		if err == nil && sub.State == "finished" {
			if sub.Verdict == nil || *sub.Verdict != "AC" {
				t.Fatalf("%s: submission %+v\n%s", what, sub, logs.String())
			}
			return time.Since(began)
		}
		if ctx.Err() != nil {
			t.Fatalf("%s: submission %+v %v\n%s", what, sub, err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The real binary on a multi-host PostgreSQL URL (primary, then a streaming standby):
// migrate, judge, stop the primary and promote the standby, judge again — the API, the
// dispatcher (its LISTEN included) and the worker find the new primary by themselves.
func TestOjdAllThroughPostgresFailover(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the worker's sandbox needs root")
	}
	pair := testenv.StartPostgresPair(t)
	dir, bin := buildOjd(t)
	addr := freeAddr(t)
	cfg := filepath.Join(dir, "ojd.yaml")
	yaml := fmt.Sprintf(`postgres:
  url: %q
redis:
  addr: %s
  key_prefix: %s
storage:
  fs:
    root: %s/objects
sandbox:
  cgroup_parent: %s
api:
  listen: %s
judge:
  work_dir: %s/work
  cache:
    dir: %s/cache
`, pair.URL(), testenv.RedisAddr(t), testenv.RandomName("t"), dir, testenv.RandomName("oj-ojd-test-"), addr, dir, dir)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "--config", cfg, "migrate", "up").CombinedOutput(); err != nil {
		t.Fatalf("migrate up: %v\n%s", err, out)
	}
	c, cmd, logs := startAll(t, bin, cfg, addr)
	before := judgeAPlusB(t, c, logs, "before the failover")
	pair.Primary.Stop("fast")
	pair.Standby.Promote()
	after := judgeAPlusB(t, c, logs, "after the standby's promotion")
	t.Logf("judged in %s before the failover, %s from the first submit to the verdict after the promotion",
		before.Round(time.Millisecond), after.Round(time.Millisecond))
	stopWithSIGTERM(t, cmd, "ojd all", logs)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
