package testenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisNode is a redis-server (or a Sentinel) a test started on 127.0.0.1 with a port of
// its own; it is killed when the test ends. The binary is redis-server, which
// scripts/deps.sh installs for make test (a Sentinel is the same binary with --sentinel).
type RedisNode struct {
	Port int
	Dir  string
	cmd  *exec.Cmd
	done chan struct{}
}

// Addr is the node's address.
func (n *RedisNode) Addr() string { return "127.0.0.1:" + strconv.Itoa(n.Port) }

// FreePort returns a port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func redisServer(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redis-server is not installed: run scripts/deps.sh (make test does): %v", err)
	}
	return bin
}

// StartRedis starts a redis-server on port (0: a free one) with the directives of conf
// (one per line, redis.conf syntax) after a test-friendly base: loopback only, no
// snapshots, its files in a directory of its own; "{port}" in conf stands for the port
// (for "tls-port {port}" after "port 0"). sentinel starts it as a Sentinel.
// It returns once the port accepts connections. A free port taken by another process
// between the choice and the bind is chosen again.
func StartRedis(t testing.TB, port int, sentinel bool, conf ...string) *RedisNode {
	t.Helper()
	for try := 1; ; try++ {
		p := port
		if p == 0 {
			p = FreePort(t)
		}
		n, log, err := startRedis(t, p, sentinel, conf)
		if err == nil {
			return n
		}
		if port != 0 || try == 3 || !strings.Contains(log, "Address already in use") {
			t.Fatalf("redis-server on %d: %v\n%s", p, err, log)
		}
	}
}

func startRedis(t testing.TB, port int, sentinel bool, conf []string) (*RedisNode, string, error) {
	dir := filepath.Join(t.TempDir(), "redis-"+strconv.Itoa(port))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", err
	}
	base := []string{"bind 127.0.0.1", "port " + strconv.Itoa(port), "dir " + dir, "daemonize no",
		"logfile " + filepath.Join(dir, "log")}
	if !sentinel {
		base = append(base, `save ""`, "appendonly no")
	}
	for _, line := range conf {
		base = append(base, strings.ReplaceAll(line, "{port}", strconv.Itoa(port)))
	}
	file := filepath.Join(dir, "redis.conf")
	if err := os.WriteFile(file, []byte(strings.Join(base, "\n")+"\n"), 0o644); err != nil {
		return nil, "", err
	}
	args := []string{file}
	if sentinel {
		args = append(args, "--sentinel")
	}
	cmd := exec.Command(redisServer(t), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	n := &RedisNode{Port: port, Dir: dir, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(n.done) }()
	t.Cleanup(n.Kill)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", n.Addr(), time.Second)
		if err == nil {
			c.Close()
			return n, "", nil
		}
		select {
		case <-n.done:
			return nil, n.Log(), errors.New("exited at start")
		default:
		}
		if time.Now().After(deadline) {
			n.Kill()
			return nil, n.Log(), fmt.Errorf("no connection within 10 s: %w", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Kill ends the node with SIGKILL (a crash: nothing is flushed) and waits for it.
func (n *RedisNode) Kill() {
	select {
	case <-n.done:
		return
	default:
	}
	_ = n.cmd.Process.Kill()
	<-n.done
}

// Log is the node's log so far, for a failing test's message.
func (n *RedisNode) Log() string {
	b, _ := os.ReadFile(filepath.Join(n.Dir, "log"))
	return string(b)
}

// Certs are a CA and a certificate it signed for 127.0.0.1 and the name "redis.test",
// and a second CA that signed nothing of them, made with openssl in a test's directory.
type Certs struct {
	CA, Cert, Key string
	OtherCA       string
}

// MakeCerts generates the certificates with openssl (installed with ca-certificates by
// scripts/deps.sh).
func MakeCerts(t testing.TB) Certs {
	t.Helper()
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	run := func(args ...string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if out, err := exec.CommandContext(ctx, "openssl", args...).CombinedOutput(); err != nil {
			t.Fatalf("openssl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	ca := func(name string) {
		run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
			"-subj", "/CN="+name, "-keyout", p(name+".key"), "-out", p(name+".pem"))
	}
	ca("ca")
	ca("other-ca")
	if err := os.WriteFile(p("ext"), []byte("subjectAltName=IP:127.0.0.1,DNS:redis.test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=redis.test",
		"-keyout", p("server.key"), "-out", p("server.csr"))
	run("x509", "-req", "-in", p("server.csr"), "-CA", p("ca.pem"), "-CAkey", p("ca.key"), "-CAcreateserial",
		"-days", "2", "-extfile", p("ext"), "-out", p("server.pem"))
	for _, f := range []string{"server.key", "ca.key"} {
		if err := os.Chmod(p(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Certs{CA: p("ca.pem"), Cert: p("server.pem"), Key: p("server.key"), OtherCA: p("other-ca.pem")}
}

// WaitFor polls cond every 50 ms until it holds or timeout passes; it fails the test
// with what, and cond's last error.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s: %v", what, timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Sentinel is a Redis master, one replica in sync with it and one Sentinel watching it
// under the name "oj" (quorum 1, down after 500 ms), all on 127.0.0.1.
type Sentinel struct {
	Master, Replica, Sentinel *RedisNode
}

// StartSentinel starts the three and returns once the replica is in sync and the
// Sentinel knows it (so that a kill of the master is followed by a promotion). conf are
// more lines for the Sentinel's configuration (an ACL user).
func StartSentinel(t testing.TB, conf ...string) *Sentinel {
	t.Helper()
	ctx := context.Background()
	master := StartRedis(t, 0, false)
	replica := StartRedis(t, 0, false, "replicaof 127.0.0.1 "+strconv.Itoa(master.Port))
	sentinel := StartRedis(t, 0, true, append([]string{
		"sentinel monitor oj 127.0.0.1 " + strconv.Itoa(master.Port) + " 1",
		"sentinel down-after-milliseconds oj 500",
		"sentinel failover-timeout oj 5000"}, conf...)...)
	rc := redis.NewClient(&redis.Options{Addr: replica.Addr(), MaxRetries: -1})
	defer rc.Close()
	sc := redis.NewClient(&redis.Options{Addr: sentinel.Addr(), MaxRetries: -1})
	defer sc.Close()
	WaitFor(t, 10*time.Second, "the replica in sync and known to the Sentinel", func() error {
		info, err := rc.Info(ctx, "replication").Result()
		if err != nil || !strings.Contains(info, "master_link_status:up") {
			return fmt.Errorf("replica: %v %q", err, info)
		}
		rs, err := sc.Do(ctx, "SENTINEL", "REPLICAS", "oj").Slice()
		if err != nil || len(rs) == 0 {
			return fmt.Errorf("sentinel knows no replica yet: %v", err)
		}
		return nil
	})
	return &Sentinel{Master: master, Replica: replica, Sentinel: sentinel}
}
