//go:build linux

package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sys/unix"

	"oj/core/api/client"
	"oj/core/judge/problem/problemtest"
	"oj/core/testenv"
	"oj/core/wire"
)

// make test-cluster: oj on several hosts, each a network namespace of this machine, under
// a load of submissions while the faults of a real deployment happen. The hosts:
//
//	data   10.77.0.10  PostgreSQL primary (:5432) and streaming standby (:5433)
//	       10.77.0.11  Redis master and 2 replicas (:6379-6381), 3 Sentinels (:26379-26381);
//	                   in TestClusterRedisCluster six Cluster nodes (:7000-7005) instead
//	       10.77.0.12  MinIO (:9000)
//	api    10.77.0.20  ojd api (:8080) and ojd dispatcher
//	w1-w3  10.77.0.31-33  ojd worker, storage.backend s3; w3 is configured without Java
//
// Every host has a veth into a bridge that lives in a namespace of its own; nothing is
// linked to the machine's interfaces and no namespace has a default route, so nothing
// leaves them. The test itself reaches the API, PostgreSQL and Redis through sockets
// made inside the api namespace (dialIn).
//
// Faults, each when a share of the load has finished: SIGKILL of the Redis master (the
// Sentinels promote a replica); w1 cut off PostgreSQL, healed; w1 cut off Redis for longer
// than a lease, healed; the PostgreSQL primary stopped and the standby promoted (the
// multi-host URL finds it); w2 SIGKILLed while it holds a lease (and started again under
// another name); w1 drained with ojctl. Then the checks, read from PostgreSQL.
//
// OJ_TEST_CLUSTER=1 runs it (root only); OJ_TEST_CLUSTER_SUBMISSIONS sets the load (default
// 1000).
func TestCluster(t *testing.T) { runClusterTest(t, "sentinel") }

// TestClusterRedisCluster is the same load and faults against a Redis Cluster of three
// masters and three replicas (redis.mode: cluster), the slots split so that the light and
// heavy lanes live on different masters; its Redis fault is DEBUG SEGFAULT on the master
// of the light lane, and a replica takes over.
func TestClusterRedisCluster(t *testing.T) { runClusterTest(t, "cluster") }

// TestClusterSentinelTLSACL is the Sentinel run with every Redis link on TLS (the data
// nodes, replication, the Sentinels) and ojd as the ACL users of the install guide (oj,
// limited to ~oj:*, and oj-sentinel). Before oj starts, an ojd given another CA or
// another server name must refuse to start, naming the key.
func TestClusterSentinelTLSACL(t *testing.T) { runClusterTest(t, "sentinel-tls") }

func runClusterTest(t *testing.T, redisMode string) {
	if os.Getenv("OJ_TEST_CLUSTER") != "1" {
		t.Skip("OJ_TEST_CLUSTER=1 runs it (make test-cluster)")
	}
	if os.Geteuid() != 0 {
		t.Fatal("make test-cluster needs root (network namespaces, the workers' sandbox, PostgreSQL as postgres)")
	}
	n := 1000
	if v := os.Getenv("OJ_TEST_CLUSTER_SUBMISSIONS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 20 {
			t.Fatalf("OJ_TEST_CLUSTER_SUBMISSIONS=%q: want a number of at least 20", v)
		}
	}
	began := time.Now()
	c := newCluster(t)
	c.redisMode = redisMode
	if redisMode == "sentinel-tls" {
		c.tls, c.certs = true, testenv.MakeCerts(t)
	}
	c.startData()
	c.startOj()
	setup := time.Since(began)
	t.Logf("hosts up in %s", setup.Round(time.Millisecond))
	c.runLoad(n)
	c.check(n)
	t.Logf("wall time %s (set-up %s)", time.Since(began).Round(time.Second), setup.Round(time.Second))
}

const (
	clusterPrefix = "ojc-" // every namespace of a run: ojc-RUN-HOST
	pgIP          = "10.77.0.10"
	redisIP       = "10.77.0.11"
	minioIP       = "10.77.0.12"
	apiIP         = "10.77.0.20"
)

type cluster struct {
	t        *testing.T
	run      string // this run's id, in the namespaces' names
	dir      string
	logDir   string // the processes' logs, kept when the test fails
	bin      string // ojd
	ctlBin   string // ojctl
	pgBin    string
	procsMu  sync.Mutex
	procs    map[string]*clusterProc
	token    string
	api      *client.Client
	pgURL    string
	sentinel []string
	oldRedis string // the Redis master before the SIGKILL
	// redisKilled are the Redis masters SIGKILLed (Sentinel: twice, the second time the
	// master the first failover promoted).
	redisKilled []string
	faults      []string
	w2Killed    bool // w2 SIGKILLed while it held a lease
	// redisMode is sentinel or cluster; in cluster mode, redisNodes are the six nodes and
	// laneShards the master of each lane's slot at the start.
	redisMode  string
	tls        bool
	certs      testenv.Certs
	extra      []clusterCheck // checks made before the load
	redisNodes []string
	laneShards map[string]string
	expected   map[string]string
}

type clusterProc struct {
	cmd  *exec.Cmd
	logs *syncBuffer
	done chan struct{}
}

func (c *cluster) ns(host string) string { return clusterPrefix + c.run + "-" + host }

// newCluster removes what a killed run left (its namespaces and their processes), builds
// ojd and ojctl, and makes the namespaces; everything is removed when the test ends,
// failed or not.
func newCluster(t *testing.T) *cluster {
	removeClusterLeftovers(t)
	dir, bin := buildOjd(t)
	c := &cluster{t: t, run: strconv.FormatInt(time.Now().Unix()%1_000_000, 36), dir: dir, bin: bin,
		procs: map[string]*clusterProc{}, expected: map[string]string{}}
	c.logDir = "/var/tmp/oj-cluster-" + c.run
	if err := os.MkdirAll(c.logDir, 0o755); err != nil {
		t.Fatal(err)
	}
	c.ctlBin = filepath.Join(dir, "ojctl")
	if out, err := exec.Command("go", "build", "-o", c.ctlBin, "../ojctl").CombinedOutput(); err != nil {
		t.Fatalf("build ojctl: %v\n%s", err, out)
	}
	c.pgBin = os.Getenv("OJ_PG_BIN")
	if c.pgBin == "" {
		c.pgBin = "/usr/lib/postgresql/15/bin"
	}
	if out, err := exec.Command("chown", "postgres:postgres", dir).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v %s", err, out)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.teardown)
	c.ip("netns", "add", c.ns("net"))
	c.inNS("net", "ip", "link", "add", "br0", "type", "bridge")
	c.inNS("net", "ip", "link", "set", "br0", "up")
	c.inNS("net", "ip", "link", "set", "lo", "up")
	hosts := []struct {
		name  string
		addrs []string
	}{
		{"data", []string{pgIP, redisIP, minioIP}}, {"api", []string{apiIP}},
		{"w1", []string{"10.77.0.31"}}, {"w2", []string{"10.77.0.32"}}, {"w3", []string{"10.77.0.33"}},
	}
	for i, h := range hosts {
		c.ip("netns", "add", c.ns(h.name))
		// The pair is made inside the bridge's namespace and one end moved to the host's:
		// no interface ever appears in the machine's own namespace.
		peer := "p" + strconv.Itoa(i)
		c.inNS("net", "ip", "link", "add", peer, "type", "veth", "peer", "name", "eth0")
		c.inNS("net", "ip", "link", "set", "eth0", "netns", c.ns(h.name))
		c.inNS("net", "ip", "link", "set", peer, "master", "br0", "up")
		for _, a := range h.addrs {
			c.inNS(h.name, "ip", "addr", "add", a+"/24", "dev", "eth0")
		}
		c.inNS(h.name, "ip", "link", "set", "eth0", "up")
		c.inNS(h.name, "ip", "link", "set", "lo", "up")
	}
	return c
}

// removeClusterLeftovers kills the processes of every namespace a run of this test made
// (ojc-*) and removes those namespaces: a run killed before its cleanup leaves them. The
// logs a failed or killed run kept (/var/tmp/oj-cluster-*) go too.
func removeClusterLeftovers(t *testing.T) {
	old, _ := filepath.Glob("/var/tmp/oj-cluster-*")
	for _, d := range old {
		_ = os.RemoveAll(d)
	}
	removeClusterCgroups()
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatalf("ip netns list: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		if strings.HasPrefix(name, clusterPrefix) {
			t.Logf("removing namespace %s left by an earlier run", name)
			removeNamespace(name)
		}
	}
}

func removeNamespace(name string) {
	for range 50 {
		out, _ := exec.Command("ip", "netns", "pids", name).Output()
		pids := strings.Fields(string(out))
		if len(pids) == 0 {
			break
		}
		for _, p := range pids {
			if pid, err := strconv.Atoi(p); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = exec.Command("ip", "netns", "del", name).Run()
}

func (c *cluster) teardown() {
	c.procsMu.Lock()
	for _, p := range c.procs {
		_ = p.cmd.Process.Kill()
	}
	c.procsMu.Unlock()
	for _, h := range []string{"api", "w1", "w2", "w3", "data", "net"} {
		removeNamespace(c.ns(h))
	}
	removeClusterCgroups()
	if c.t.Failed() {
		c.t.Logf("the processes' logs are kept in %s", c.logDir)
	} else {
		_ = os.RemoveAll(c.logDir)
	}
}

// removeClusterCgroups removes the workers' cgroup parents (sandbox.cgroup_parent
// oj-cluster-*) once their processes are gone: a SIGKILLed worker leaves its pools'
// cgroups behind. A cgroup still holding a process stays.
func removeClusterCgroups() {
	roots, _ := filepath.Glob("/sys/fs/cgroup/oj-cluster-*")
	v1, _ := filepath.Glob("/sys/fs/cgroup/*/oj-cluster-*")
	for _, root := range append(roots, v1...) {
		var dirs []string
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- {
			_ = syscall.Rmdir(dirs[i])
		}
	}
}

func (c *cluster) ip(args ...string) {
	c.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		c.t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// nsCmd is a command in host's network namespace. nsenter switches the network
// namespace only: the workers' sandbox needs the machine's /sys/fs/cgroup, which
// `ip netns exec` would hide behind a fresh /sys.
func (c *cluster) nsCmd(host string, args ...string) *exec.Cmd {
	return exec.Command("nsenter", append([]string{"--net=/run/netns/" + c.ns(host), "--"}, args...)...)
}

func (c *cluster) inNS(host string, args ...string) string {
	c.t.Helper()
	out, err := c.nsCmd(host, args...).CombinedOutput()
	if err != nil {
		c.t.Fatalf("%s: %s: %v\n%s", host, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// start runs a long-lived process on host under name; it is SIGKILLed at the end.
func (c *cluster) start(name, host string, env []string, args ...string) *clusterProc {
	c.t.Helper()
	cmd := c.nsCmd(host, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	p := &clusterProc{cmd: cmd, logs: &syncBuffer{}, done: make(chan struct{})}
	f, err := os.Create(filepath.Join(c.logDir, name+".log"))
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { f.Close() })
	cmd.Stdout = io.MultiWriter(p.logs, f)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		c.t.Fatalf("start %s: %v", name, err)
	}
	go func() { _ = cmd.Wait(); close(p.done) }()
	c.procsMu.Lock()
	c.procs[name] = p
	c.procsMu.Unlock()
	return p
}

func (c *cluster) proc(name string) *clusterProc {
	c.procsMu.Lock()
	defer c.procsMu.Unlock()
	return c.procs[name]
}

// kill SIGKILLs a process started with start and waits for it.
func (c *cluster) kill(name string) {
	p := c.proc(name)
	_ = p.cmd.Process.Kill()
	<-p.done
}

// dialIn returns a dialer whose sockets are made inside host's network namespace: the
// dialing thread enters it for the socket's creation only (a socket stays in the
// namespace it was made in), then returns to the test's own.
func (c *cluster) dialIn(host string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	path := "/run/netns/" + c.ns(host)
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		type result struct {
			conn net.Conn
			err  error
		}
		ch := make(chan result, 1)
		go func() {
			runtime.LockOSThread()
			own, err := os.Open("/proc/thread-self/ns/net")
			if err != nil {
				runtime.UnlockOSThread()
				ch <- result{nil, err}
				return
			}
			defer own.Close()
			target, err := os.Open(path)
			if err != nil {
				runtime.UnlockOSThread()
				ch <- result{nil, err}
				return
			}
			defer target.Close()
			if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
				runtime.UnlockOSThread()
				ch <- result{nil, fmt.Errorf("setns %s: %w", path, err)}
				return
			}
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			// A thread that cannot return stays locked: it ends with this goroutine.
			if unix.Setns(int(own.Fd()), unix.CLONE_NEWNET) == nil {
				runtime.UnlockOSThread()
			}
			ch <- result{conn, err}
		}()
		r := <-ch
		return r.conn, r.err
	}
}

// --- the data host ---------------------------------------------------------------------

func (c *cluster) pg(args ...string) *exec.Cmd {
	name := args[0]
	return c.nsCmd("data", append([]string{"runuser", "-u", "postgres", "--", filepath.Join(c.pgBin, name)}, args[1:]...)...)
}

func (c *cluster) runPG(args ...string) {
	c.t.Helper()
	cmd := c.pg(args...)
	cmd.Dir = "/"
	if out, err := cmd.CombinedOutput(); err != nil {
		c.t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func (c *cluster) startPG(data string, port int) {
	c.t.Helper()
	c.runPG("pg_ctl", "start", "-w", "-D", data, "-l", data+".log", "-o",
		fmt.Sprintf("-p %d -k %s -c listen_addresses=%s -c fsync=off -c wal_level=replica -c max_wal_senders=4 -c max_connections=200",
			port, data, pgIP))
}

func (c *cluster) startData() {
	t := c.t
	primary, standby := filepath.Join(c.dir, "pg-primary"), filepath.Join(c.dir, "pg-standby")
	c.runPG("initdb", "-D", primary, "--auth=trust", "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
	// The hosts reach it over the namespaces' network: trust inside 10.77.0.0/24, as the
	// loopback is trusted (the standby's basebackup and streaming included).
	hba, err := os.OpenFile(filepath.Join(primary, "pg_hba.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = hba.WriteString("host all all 10.77.0.0/24 trust\nhost replication all 10.77.0.0/24 trust\n")
	if cerr := hba.Close(); err != nil || cerr != nil {
		t.Fatalf("pg_hba.conf: %v %v", err, cerr)
	}
	c.startPG(primary, 5432)
	c.runPG("pg_basebackup", "-h", pgIP, "-p", "5432", "-U", "postgres", "-D", standby, "-R", "-X", "stream", "--no-sync")
	c.startPG(standby, 5433)
	c.pgURL = fmt.Sprintf("postgres://postgres@%s:5432,%s:5433/postgres?sslmode=disable&target_session_attrs=read-write", pgIP, pgIP)

	redisConf := func(name string, port int, extra ...string) string {
		d := filepath.Join(c.dir, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		conf := []string{"bind " + redisIP, "port " + strconv.Itoa(port), "dir " + d, "daemonize no",
			"logfile " + filepath.Join(d, "log"), "protected-mode no"}
		for _, line := range extra { // a later line wins: "port 0" then "tls-port {port}"
			conf = append(conf, strings.ReplaceAll(line, "{port}", strconv.Itoa(port)))
		}
		f := filepath.Join(d, "redis.conf")
		if err := os.WriteFile(f, []byte(strings.Join(conf, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	data := []string{`save ""`, "appendonly yes", "appendfsync everysec", "maxmemory-policy noeviction",
		"replica-announce-ip " + redisIP}
	if c.tls {
		data = append(data, c.tlsConf()...)
		data = append(data, clusterACLLine(t, "oj", "oj-secret"))
	}
	if c.redisMode == "cluster" {
		for port := 7000; port < 7006; port++ {
			name := "redis-" + strconv.Itoa(port)
			c.start(name, "data", nil, "redis-server", redisConf(name, port, append(data, "cluster-enabled yes",
				"cluster-config-file nodes.conf", "cluster-node-timeout 2000", "cluster-announce-ip "+redisIP,
				"enable-debug-command yes")...))
			c.redisNodes = append(c.redisNodes, redisIP+":"+strconv.Itoa(port))
		}
		c.makeRedisCluster()
	} else {
		c.startSentinels(redisConf, data)
	}
	c.startMinIO()
}

// startSentinels starts a Redis master, two replicas and three Sentinels (quorum 2) and
// waits until the replicas are in sync and every Sentinel knows them and the others.
func (c *cluster) startSentinels(redisConf func(string, int, ...string) string, data []string) {
	t := c.t
	c.start("redis-6379", "data", nil, "redis-server", redisConf("redis-6379", 6379, data...))
	for _, port := range []int{6380, 6381} {
		name := "redis-" + strconv.Itoa(port)
		c.start(name, "data", nil, "redis-server", redisConf(name, port, append(data, "replicaof "+redisIP+" 6379")...))
	}
	for _, port := range []int{26379, 26380, 26381} {
		name := "sentinel-" + strconv.Itoa(port)
		conf := []string{"sentinel monitor oj " + redisIP + " 6379 2", "sentinel down-after-milliseconds oj 1000",
			"sentinel failover-timeout oj 5000", "sentinel announce-ip " + redisIP}
		if c.tls {
			conf = append(conf, c.tlsConf()...)
			conf = append(conf, clusterACLLine(t, "oj-sentinel", "sentinel-secret"))
		}
		c.start(name, "data", nil, "redis-server", redisConf(name, port, conf...), "--sentinel")
		c.sentinel = append(c.sentinel, redisIP+":"+strconv.Itoa(port))
	}

	ctx := context.Background()
	testenv.WaitFor(t, time.Minute, "Redis replicas in sync and known to the Sentinels", func() error {
		for _, s := range c.sentinel {
			sc := redis.NewClient(c.redisOptions(s))
			rs, err := sc.Do(ctx, "SENTINEL", "REPLICAS", "oj").Slice()
			ss, err2 := sc.Do(ctx, "SENTINEL", "SENTINELS", "oj").Slice()
			sc.Close()
			if err != nil || err2 != nil || len(rs) != 2 || len(ss) != 2 {
				return fmt.Errorf("sentinel %s: %d replicas, %d other sentinels (%v %v)", s, len(rs), len(ss), err, err2)
			}
		}
		return nil
	})
	if c.tls {
		c.checkTLSRefusals()
		c.checkACLLimit()
	}
}

// clusterCheck is one row of the checks' table.
type clusterCheck struct {
	name   string
	ok     bool
	detail string
}

// tlsConf are the TLS lines of a data node or a Sentinel: TLS only, replication and
// the Sentinels' links too; no client certificate asked for.
func (c *cluster) tlsConf() []string {
	return []string{"port 0", "tls-port {port}", "tls-cert-file " + c.certs.Cert, "tls-key-file " + c.certs.Key,
		"tls-ca-cert-file " + c.certs.CA, "tls-auth-clients no", "tls-replication yes"}
}

// clusterACLLine is user's ACL line in the install guide (systemd/README.md) with
// password: the lines an operator copies are the ones the test runs under.
func clusterACLLine(t *testing.T, user, password string) string {
	t.Helper()
	b, err := os.ReadFile("../../systemd/README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "user "+user+" on ") {
			return strings.Replace(line, ">PASSWORD", ">"+password, 1)
		}
	}
	t.Fatalf("no ACL line for %s in systemd/README.md", user)
	return ""
}

// redisOptions are the test's own options for a node or a Sentinel at addr, over TLS
// when the run has it (as the default user, which the Sentinels and replicas use).
func (c *cluster) redisOptions(addr string) *redis.Options {
	o := &redis.Options{Addr: addr, Dialer: c.dialIn("api"), MaxRetries: -1}
	if c.tls {
		pool := x509.NewCertPool()
		pem, err := os.ReadFile(c.certs.CA)
		if err != nil || !pool.AppendCertsFromPEM(pem) {
			c.t.Fatalf("CA %s: %v", c.certs.CA, err)
		}
		cfg := &tls.Config{RootCAs: pool, ServerName: "redis.test", MinVersion: tls.VersionTLS12}
		plain := o.Dialer
		o.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := plain(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			tc := tls.Client(conn, cfg)
			if err := tc.HandshakeContext(ctx); err != nil {
				conn.Close()
				return nil, err
			}
			return tc, nil
		}
	}
	return o
}

// checkTLSRefusals starts ojd dispatcher with another CA, then another server name: each
// must exit non-zero with an error that names the key to fix (redis.tls.ca_file,
// redis.tls.server_name), not run and fail every command.
func (c *cluster) checkTLSRefusals() {
	for _, tc := range []struct{ name, tls, want string }{
		{"another CA", "ca_file: " + c.certs.OtherCA + "\n    server_name: redis.test", "redis.tls.ca_file"},
		{"another server name", "ca_file: " + c.certs.CA + "\n    server_name: other.test", "redis.tls.server_name"},
	} {
		cfg := c.config("refused", "")
		b, err := os.ReadFile(cfg)
		if err != nil {
			c.t.Fatal(err)
		}
		yaml := strings.Replace(string(b), "ca_file: "+c.certs.CA+"\n    server_name: redis.test", tc.tls, 1)
		if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
			c.t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := c.nsCmd("api", c.bin, "--config", cfg, "dispatcher", "--metrics-listen", "")
		out, err := exec.CommandContext(ctx, cmd.Args[0], cmd.Args[1:]...).CombinedOutput()
		timedOut := ctx.Err() != nil
		cancel()
		ok := err != nil && !timedOut && strings.Contains(string(out), tc.want)
		line := strings.TrimSpace(string(out))
		if i := strings.Index(line, tc.want); i >= 0 {
			line = line[i:]
		}
		line, _, _ = strings.Cut(line, "\n")
		c.extra = append(c.extra, clusterCheck{"TLS: " + tc.name + " refused at start", ok,
			fmt.Sprintf("exit: %v, timed out: %v: %.160s", err, timedOut, line)})
	}
}

// checkACLLimit: the oj user reaches its keys and no others.
func (c *cluster) checkACLLimit() {
	ctx := context.Background()
	sc := redis.NewClient(c.redisOptions(c.sentinel[0]))
	addr, err := sc.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "oj").StringSlice()
	sc.Close()
	if err != nil || len(addr) != 2 {
		c.t.Fatalf("the master's address: %v %v", addr, err)
	}
	o := c.redisOptions(addr[0] + ":" + addr[1])
	o.Username, o.Password = "oj", "oj-secret"
	rc := redis.NewClient(o)
	defer rc.Close()
	inside := rc.XAdd(ctx, &redis.XAddArgs{Stream: "oj:{acl}:probe", Values: []any{"k", "v"}}).Err()
	_ = rc.Del(ctx, "oj:{acl}:probe").Err()
	outside := rc.XAdd(ctx, &redis.XAddArgs{Stream: "other:probe", Values: []any{"k", "v"}}).Err()
	ok := inside == nil && outside != nil && strings.Contains(outside.Error(), "NOPERM")
	c.extra = append(c.extra, clusterCheck{"ACL: user oj writes oj:* only", ok,
		fmt.Sprintf("oj:{acl}:probe: %v; other:probe: %v", inside, outside)})
}

// makeRedisCluster joins the six nodes into a Cluster: masters 7000-7002 with slots split
// at 7000 and 11000, so that {light} (slot 6713) and {heavy} (slot 8060) are on different
// masters, and 7003-7005 their replicas.
func (c *cluster) makeRedisCluster() {
	t := c.t
	ctx := context.Background()
	node := func(i int) *redis.Client {
		return redis.NewClient(&redis.Options{Addr: c.redisNodes[i], Dialer: c.dialIn("api"), MaxRetries: -1})
	}
	n0 := node(0)
	defer n0.Close()
	for i := 1; i < 6; i++ {
		if err := n0.ClusterMeet(ctx, redisIP, strconv.Itoa(7000+i)).Err(); err != nil {
			t.Fatalf("CLUSTER MEET: %v", err)
		}
	}
	ranges := [][2]int{{0, 7000}, {7001, 11000}, {11001, 16383}}
	ids := make([]string, 6)
	for i := range 6 {
		nc := node(i)
		id, err := nc.Do(ctx, "CLUSTER", "MYID").Text()
		if err != nil {
			t.Fatalf("CLUSTER MYID: %v", err)
		}
		ids[i] = id
		if i < 3 {
			if err := nc.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", ranges[i][0], ranges[i][1]).Err(); err != nil {
				t.Fatalf("CLUSTER ADDSLOTSRANGE: %v", err)
			}
		}
		nc.Close()
	}
	for i := 3; i < 6; i++ {
		nc := node(i)
		testenv.WaitFor(t, time.Minute, "node "+c.redisNodes[i]+" knows its master", func() error {
			return nc.Do(ctx, "CLUSTER", "REPLICATE", ids[i-3]).Err()
		})
		nc.Close()
	}
	testenv.WaitFor(t, time.Minute, "the Cluster ok on every node, each master with a replica in sync", func() error {
		for i := range 6 {
			nc := node(i)
			info, err := nc.ClusterInfo(ctx).Result()
			repl, err2 := nc.Info(ctx, "replication").Result()
			nc.Close()
			if err != nil || err2 != nil || !strings.Contains(info, "cluster_state:ok") {
				return fmt.Errorf("%s: %v %v %q", c.redisNodes[i], err, err2, info)
			}
			if i >= 3 && !strings.Contains(repl, "master_link_status:up") {
				return fmt.Errorf("%s: replica not in sync", c.redisNodes[i])
			}
		}
		return nil
	})
	c.laneShards = map[string]string{}
	for _, lane := range []string{"light", "heavy"} {
		c.laneShards[lane] = c.slotMaster(ctx, "oj:{"+lane+"}:jobs")
	}
	t.Logf("Redis Cluster: lane light on %s, heavy on %s", c.laneShards["light"], c.laneShards["heavy"])
}

// slotMaster is the master that serves key's slot now ("" when unknown).
func (c *cluster) slotMaster(ctx context.Context, key string) string {
	nc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.redisNodes, Dialer: c.dialIn("api")})
	defer nc.Close()
	slot, err := nc.ClusterKeySlot(ctx, key).Result()
	if err != nil {
		return ""
	}
	slots, err := nc.ClusterSlots(ctx).Result()
	if err != nil {
		return ""
	}
	for _, s := range slots {
		if int64(s.Start) <= slot && slot <= int64(s.End) && len(s.Nodes) > 0 {
			return s.Nodes[0].Addr
		}
	}
	return ""
}

func (c *cluster) startMinIO() {
	t := c.t
	minio := filepath.Join(os.Getenv("HOME"), "go", "bin", "minio")
	if gp, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		minio = filepath.Join(strings.TrimSpace(string(gp)), "bin", "minio")
	}
	if _, err := os.Stat(minio); err != nil {
		t.Fatalf("%s: %v (scripts/minio.sh builds it)", minio, err)
	}
	p := c.start("minio", "data", []string{"MINIO_ROOT_USER=ojclusteraccess", "MINIO_ROOT_PASSWORD=ojclustersecret",
		"MINIO_BROWSER=off", "MINIO_UPDATE=off"},
		minio, "server", "--quiet", "--address", minioIP+":9000", "--console-address", minioIP+":9001", filepath.Join(c.dir, "minio"))

	hc := &http.Client{Transport: &http.Transport{DialContext: c.dialIn("api")}, Timeout: 2 * time.Second}
	testenv.WaitFor(t, time.Minute, "MinIO live", func() error {
		resp, err := hc.Get("http://" + minioIP + ":9000/minio/health/live")
		if err != nil {
			return fmt.Errorf("%v\n%s", err, p.logs.String())
		}
		resp.Body.Close()
		return nil
	})
}

// --- oj --------------------------------------------------------------------------------

func (c *cluster) config(host, extra string) string {
	c.t.Helper()
	yaml := fmt.Sprintf(`postgres:
  url: %q
redis:
%s
storage:
  backend: s3
  s3:
    endpoint: %s:9000
    bucket: ojcluster
    access_key: ojclusteraccess
    secret_key: ojclustersecret
sandbox:
  cgroup_parent: %s
api:
  listen: %s:8080
  limits:
    user_rate: 0
    max_live_per_admin: 0
    backlog_max_queued: 0
    backlog_max_age: 0s
worker:
  concurrency: {light: 1, heavy: 1, rejudge: 1, run: 0}
  lease: 4s
  heartbeat_interval: 1s
  reclaim_interval: 1s
  reclaim_min_idle: 5s
  retry_base: 200ms
  retry_max: 2s
  store_timeout: 3s
  state_poll: 500ms
dispatcher:
  reconcile_interval: 2s
  reconcile_after: 5s
judge:
  work_dir: %s/work
  cache:
    dir: %s/cache
%s`, c.pgURL, c.redisYAML(), minioIP, testenv.RandomName("oj-cluster-"+host+"-"), apiIP,
		filepath.Join(c.dir, host), filepath.Join(c.dir, host), extra)
	f := filepath.Join(c.dir, host+".yaml")
	if err := os.WriteFile(f, []byte(yaml), 0o600); err != nil {
		c.t.Fatal(err)
	}
	return f
}

func (c *cluster) redisYAML() string {
	if c.redisMode == "cluster" {
		return "  mode: cluster\n  addr: \"\"\n  addrs: [" + strings.Join(c.redisNodes, ", ") + "]"
	}
	y := "  mode: sentinel\n  addr: \"\"\n  addrs: [" + strings.Join(c.sentinel, ", ") + "]\n  master_name: oj"
	if c.tls {
		y += "\n  username: oj\n  password: oj-secret\n  sentinel_username: oj-sentinel\n  sentinel_password: sentinel-secret" +
			"\n  tls:\n    enabled: true\n    ca_file: " + c.certs.CA + "\n    server_name: redis.test"
	}
	return y
}

func (c *cluster) startWorker(host, name string, env ...string) *clusterProc {
	cfg := c.config(name, "")
	return c.start(name, host, env, c.bin, "--config", cfg, "worker", "--metrics-listen", "", "--name", name)
}

func (c *cluster) startOj() {
	t := c.t
	apiCfg := c.config("api", "")
	c.inNS("api", c.bin, "--config", apiCfg, "migrate", "up")
	out := strings.TrimSpace(c.inNS("api", c.bin, "--config", apiCfg, "token", "create", "--name", "root", "--role", "admin"))
	c.token = out[strings.LastIndex(out, "\n")+1:]
	api := c.start("api", "api", nil, c.bin, "--config", apiCfg, "api")
	c.start("dispatcher", "api", nil, c.bin, "--config", apiCfg, "dispatcher", "--metrics-listen", "")
	c.startWorker("w1", "w1")
	c.startWorker("w2", "w2")
	// w3 has no Java: worker.languages leaves it out.
	c.startWorker("w3", "w3", "OJ_WORKER_LANGUAGES=c11,cpp17,python3")
	c.api = client.New("http://"+apiIP+":8080", c.token)
	c.api.HTTP = &http.Client{Transport: &http.Transport{DialContext: c.dialIn("api")}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	testenv.WaitFor(t, time.Minute, "the API up", func() error {
		_, err := c.api.Workers(ctx)
		if err != nil {
			return fmt.Errorf("%v\n%s", err, api.logs.String())
		}
		return nil
	})
	for _, w := range []string{"w1", "w2", "w3"} {
		p := c.proc(w)
		testenv.WaitFor(t, 3*time.Minute, w+"'s self-check", func() error {
			if !strings.Contains(p.logs.String(), "worker self-check passed") {
				return fmt.Errorf("not yet:\n%s", p.logs.String())
			}
			return nil
		})
	}
	if _, err := c.api.PutProblem(ctx, "aplusb", bytes.NewReader(problemtest.Zip(problemtest.APlusB(
		"title: A+B\ntime_limit_ms: 2000\nmemory_limit_mb: 256\n")))); err != nil {
		t.Fatal(err)
	}
}

// --- the load and the faults -------------------------------------------------------------

// clusterMix is the load's fixed mix: per 100 submissions, how many of each kind, with the
// verdict each must end with.
var clusterMix = []struct {
	kind, language, verdict, source string
	per100                          int
}{
	{"python AC", "python3", "AC", "a, b = map(int, input().split())\nprint(a + b)\n", 40},
	{"C AC", "c11", "AC", "#include <stdio.h>\nint main(void){long a,b;scanf(\"%ld %ld\",&a,&b);printf(\"%ld\\n\",a+b);return 0;}\n", 14},
	{"C++ AC", "cpp17", "AC", "#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<\"\\n\";}\n", 14},
	{"Java AC", "java17", "AC", "import java.util.Scanner;\npublic class Main { public static void main(String[] x) { Scanner s = new Scanner(System.in); System.out.println(s.nextLong() + s.nextLong()); } }\n", 10},
	{"python WA", "python3", "WA", "a, b = map(int, input().split())\nprint(a - b)\n", 10},
	{"python TLE", "python3", "TLE", "while True:\n    pass\n", 3},
	{"C++ CE", "cpp17", "CE", "int main() { return undefined_name; }\n", 9},
}

// clusterKind is submission i's kind: i*37 mod 100 walks through all 100 places in an
// order that mixes the kinds, so that any stretch of the load has each kind in it.
func clusterKind(i int) int {
	r := i * 37 % 100
	for k, m := range clusterMix {
		if r < m.per100 {
			return k
		}
		r -= m.per100
	}
	panic("the mix does not add up to 100")
}

// runLoad submits n submissions through the API, at most window of them unfinished at
// a time so that submitting goes on through every fault, and triggers the faults as the
// finished count passes their marks. A refused submit (PostgreSQL failing over) is sent
// again under the same idempotency key, as a client does.
func (c *cluster) runLoad(n int) {
	t := c.t
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	db := c.connect(ctx)
	var dbMu sync.Mutex
	finished := func() int {
		dbMu.Lock()
		defer dbMu.Unlock()
		var k int
		for {
			err := db.QueryRow(ctx, `SELECT count(*) FROM submissions WHERE state IN ('finished', 'dead')`).Scan(&k)
			if err == nil {
				return k
			}
			if ctx.Err() != nil {
				t.Errorf("count finished: %v", err)
				return n // ends every wait; the checks report what is missing
			}
			_ = db.Close(ctx)
			time.Sleep(500 * time.Millisecond)
			db = c.connect(ctx)
		}
	}
	defer func() { db.Close(context.Background()) }()

	var idsMu sync.Mutex // guards c.expected
	var submitted atomic.Int64
	var retries atomic.Int64
	const window = 40
	submitDone := make(chan struct{})
	go func() {
		defer close(submitDone)
		var wg sync.WaitGroup
		next := atomic.Int64{}
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1)) - 1
					if i >= n || ctx.Err() != nil {
						return
					}
					for int(submitted.Load())-finished() >= window && ctx.Err() == nil {
						time.Sleep(200 * time.Millisecond)
					}
					m := clusterMix[clusterKind(i)]
					for {
						res, err := c.api.Submit(ctx, wire.SubmitRequest{ProblemID: "aplusb", Language: m.language, Source: m.source,
							Metadata: map[string]string{"kind": m.kind}}, "cluster-"+strconv.Itoa(i))
						if err == nil {
							idsMu.Lock()
							c.expected[res.ID()] = m.verdict
							idsMu.Unlock()
							submitted.Add(1)
							break
						}
						var ce *client.Error
						if ctx.Err() != nil || (errors.As(err, &ce) && ce.Status != 0 && ce.Status < 500 && ce.Status != 429) {
							t.Errorf("submit %d: %v", i, err)
							return
						}
						retries.Add(1)
						time.Sleep(300 * time.Millisecond)
					}
				}
			}()
		}
		wg.Wait()
	}()

	began := time.Now()
	at := func(share float64, what string) {
		mark := int(share * float64(n))
		for finished() < mark {
			if ctx.Err() != nil {
				t.Fatalf("waiting for %d finished before %s: not within the test's time", mark, what)
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Logf("%6.1fs  %d finished: %s", time.Since(began).Seconds(), mark, what)
		c.faults = append(c.faults, what)
	}

	if c.redisMode == "cluster" {
		at(0.10, "DEBUG SEGFAULT on the Redis master of the light lane")
		c.segfaultLaneMaster(ctx, "light")
	} else {
		at(0.10, "SIGKILL the Redis master")
		c.killRedisMaster(ctx)
		c.restartKilledRedis(ctx)
	}
	at(0.20, "cut w1 off PostgreSQL")
	c.inNS("w1", "ip", "route", "add", "blackhole", pgIP+"/32")
	time.Sleep(8 * time.Second)
	c.inNS("w1", "ip", "route", "del", "blackhole", pgIP+"/32")
	t.Logf("%6.1fs  w1 reaches PostgreSQL again", time.Since(began).Seconds())
	at(0.35, "cut w1 off Redis for 12 s (lease 4 s)")
	c.inNS("w1", "ip", "route", "add", "blackhole", redisIP+"/32")
	time.Sleep(12 * time.Second)
	c.inNS("w1", "ip", "route", "del", "blackhole", redisIP+"/32")
	t.Logf("%6.1fs  w1 reaches Redis again", time.Since(began).Seconds())
	if c.redisMode != "cluster" {
		// The second failover under load: the master the first one promoted dies too.
		// A group's figures that a failover leaves wrong must not hold a lane shut.
		at(0.45, "SIGKILL the Redis master again (the one the Sentinels promoted)")
		c.killRedisMaster(ctx)
	}
	at(0.50, "stop the PostgreSQL primary, promote the standby")
	dbMu.Lock()
	c.runPG("pg_ctl", "stop", "-w", "-m", "fast", "-D", filepath.Join(c.dir, "pg-primary"))
	c.runPG("pg_ctl", "promote", "-w", "-D", filepath.Join(c.dir, "pg-standby"))
	dbMu.Unlock()
	at(0.60, "SIGKILL w2 while it holds a lease")
	c.killWorkerMidJudge(ctx, "w2")
	c.startWorker("w2", "w2b")
	at(0.75, "drain w1 with ojctl")
	out := c.inNS("api", c.ctlBin, "--server", "http://"+apiIP+":8080", "--token", c.token,
		"worker", "drain", "w1", "--reason", "cluster test", "--yes")
	t.Logf("ojctl worker drain w1: %s", strings.TrimSpace(out))

	<-submitDone
	for finished() < n {
		if ctx.Err() != nil {
			t.Fatalf("%d of %d finished within the test's time", finished(), n)
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("%6.1fs  all %d finished (%d submits sent again after a refusal)", time.Since(began).Seconds(), n, retries.Load())
}

// connect opens a connection to the writable PostgreSQL from the api host.
func (c *cluster) connect(ctx context.Context) *pgx.Conn {
	c.t.Helper()
	cfg, err := pgx.ParseConfig(c.pgURL)
	if err != nil {
		c.t.Fatal(err)
	}
	cfg.DialFunc = c.dialIn("api")
	for {
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err == nil {
			return conn
		}
		if ctx.Err() != nil {
			c.t.Fatalf("connect to PostgreSQL: %v", err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// killWorkerMidJudge waits until name holds a lease, then SIGKILLs it.
func (c *cluster) killWorkerMidJudge(ctx context.Context, name string) {
	db := c.connect(ctx)
	defer db.Close(context.Background())
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		var k int
		if err := db.QueryRow(ctx, `SELECT count(*) FROM submissions WHERE state = 'running' AND lease_owner = $1`, name).Scan(&k); err == nil && k > 0 {
			c.kill(name)
			c.w2Killed = true
			c.t.Logf("%s SIGKILLed holding %d lease(s)", name, k)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.kill(name)
	c.t.Logf("%s held no lease within a minute; SIGKILLed anyway", name)
}

// --- the checks ----------------------------------------------------------------------------

func (c *cluster) check(n int) {
	t := c.t
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	db := c.connect(ctx)
	defer db.Close(context.Background())
	type row struct {
		name   string
		ok     bool
		detail string
	}
	var rows []row
	for _, e := range c.extra {
		rows = append(rows, row{e.name, e.ok, e.detail})
	}
	add := func(name string, ok bool, detail string, args ...any) {
		rows = append(rows, row{name, ok, fmt.Sprintf(detail, args...)})
	}

	type sub struct {
		state, verdict, language string
		finishes, deaths         int
		claimers                 []string
	}
	subs := map[string]*sub{}
	rs, err := db.Query(ctx, `SELECT s.id::text, s.state::text, coalesce(s.verdict, ''), s.language,
		(SELECT count(*) FROM submission_history h WHERE h.submission_id = s.id AND h.event = 'finished'),
		(SELECT count(*) FROM submission_history h WHERE h.submission_id = s.id AND h.event = 'dead'),
		coalesce((SELECT array_agg(h.worker ORDER BY h.id) FROM submission_history h WHERE h.submission_id = s.id AND h.event = 'claimed'), '{}')
		FROM submissions s`)
	if err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
		var id string
		s := &sub{}
		if err := rs.Scan(&id, &s.state, &s.verdict, &s.language, &s.finishes, &s.deaths, &s.claimers); err != nil {
			t.Fatal(err)
		}
		subs[id] = s
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}

	add("accepted submissions", len(c.expected) == n && len(subs) == n, "%d accepted of %d sent, %d rows in PostgreSQL", len(c.expected), n, len(subs))
	perKind := map[string][2]int{} // "language expected": {right, total}
	var notFinished, wrong, notOnce, dead, javaOnW3, reclaimed []string
	for id, want := range c.expected {
		s := subs[id]
		if s == nil {
			notFinished = append(notFinished, id+" (no row)")
			continue
		}
		key := fmt.Sprintf("%-8s %-3s", s.language, want)
		k := perKind[key]
		k[1]++
		if s.state != "finished" {
			notFinished = append(notFinished, id+" "+s.state)
		}
		if s.verdict == want {
			k[0]++
		} else {
			wrong = append(wrong, fmt.Sprintf("%s %s: %s, want %s", id, s.language, s.verdict, want))
		}
		perKind[key] = k
		if s.finishes != 1 {
			notOnce = append(notOnce, fmt.Sprintf("%s: %d", id, s.finishes))
		}
		if s.deaths > 0 || s.state == "dead" {
			dead = append(dead, id)
		}
		for _, w := range s.claimers {
			if w == "w3" && s.language == "java17" {
				javaOnW3 = append(javaOnW3, id)
			}
		}
		if len(s.claimers) > 1 {
			reclaimed = append(reclaimed, id)
		}
	}
	add("every one finished", len(notFinished) == 0, "%d not finished %v", len(notFinished), first(notFinished))
	keys := make([]string, 0, len(perKind))
	for k := range perKind {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := perKind[k]
		add("verdict "+k, v[0] == v[1], "%d of %d", v[0], v[1])
	}
	add("expected verdicts", len(wrong) == 0, "%d wrong %v", len(wrong), first(wrong))
	add("finished exactly once", len(notOnce) == 0, "%d with another number of 'finished' events %v", len(notOnce), first(notOnce))
	add("none dead", len(dead) == 0, "%d dead %v", len(dead), first(dead))
	add("no java17 claimed by w3 (no Java)", len(javaOnW3) == 0, "%d %v", len(javaOnW3), first(javaOnW3))
	var w3Langs []string
	err = db.QueryRow(ctx, `SELECT coalesce(languages, '{}') FROM workers WHERE name = 'w3'`).Scan(&w3Langs)
	add("w3 announced no java17", err == nil && len(w3Langs) > 0 && !slices.Contains(w3Langs, "java17"), "languages %v %v", w3Langs, err)
	var w3Claims int
	err = db.QueryRow(ctx, `SELECT count(*) FROM submission_history WHERE event = 'claimed' AND worker = 'w3'`).Scan(&w3Claims)
	add("w3 judged its share", err == nil && w3Claims > 0, "%d claims %v", w3Claims, err)

	var state string
	var stateAt time.Time
	err = db.QueryRow(ctx, `SELECT state, state_at FROM workers WHERE name = 'w1'`).Scan(&state, &stateAt)
	add("w1 drained", err == nil && state == "draining", "state %q %v", state, err)
	var after, before int
	if err == nil {
		err = db.QueryRow(ctx, `SELECT count(*) FILTER (WHERE at > $1), count(*) FILTER (WHERE at <= $1)
			FROM submission_history WHERE event = 'claimed' AND worker = 'w1'`, stateAt).Scan(&after, &before)
	}
	add("w1 claimed nothing after the drain", err == nil && after == 0 && before > 0, "%d claims before, %d after %v", before, after, err)

	if c.redisMode == "cluster" {
		add("Redis master replaced", c.oldRedis != "", "crashed %s", c.oldRedis)
	} else {
		twice := len(c.redisKilled) == 2 && c.redisKilled[0] != c.redisKilled[1]
		add("Redis master SIGKILLed twice, replaced each time", twice, "SIGKILLed %v", c.redisKilled)
	}
	if c.redisMode == "cluster" {
		l, h := c.laneShards["light"], c.laneShards["heavy"]
		add("lanes light and heavy on two shards", l != "" && h != "" && l != h, "light on %s, heavy on %s", l, h)
	}
	var recovery bool
	err = db.QueryRow(ctx, `SELECT pg_is_in_recovery() OR inet_server_port() <> 5433`).Scan(&recovery)
	add("PostgreSQL standby promoted, in use", err == nil && !recovery, "%v", err)
	var w2Lost int
	err = db.QueryRow(ctx, `SELECT count(DISTINCT submission_id) FROM submission_history h WHERE event = 'claimed' AND worker = 'w2'
		AND EXISTS (SELECT 1 FROM submission_history l WHERE l.submission_id = h.submission_id AND l.event = 'claimed' AND l.id > h.id)`).Scan(&w2Lost)
	add("w2 SIGKILLed mid-judge, its work taken over", c.w2Killed && err == nil && w2Lost > 0, "%d of w2's claims claimed again %v", w2Lost, err)

	passed, failed := 0, 0
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-44s %-6s %s\n", "CHECK", "RESULT", "DETAIL")
	for _, r := range rows {
		res := "ok"
		if r.ok {
			passed++
		} else {
			res = "FAIL"
			failed++
		}
		fmt.Fprintf(&b, "%-44s %-6s %s\n", r.name, res, r.detail)
	}
	fmt.Fprintf(&b, "claimed more than once (a lost lease, a hand-back): %d submissions\n", len(reclaimed))
	fmt.Fprintf(&b, "faults: %s\n%d passed, %d failed\n", strings.Join(c.faults, "; "), passed, failed)
	t.Log(b.String())
	if failed > 0 {
		for _, name := range []string{"api", "dispatcher", "w1", "w2b", "w3"} {
			if p := c.proc(name); p != nil {
				logs := p.logs.String()
				if len(logs) > 4000 {
					logs = logs[len(logs)-4000:]
				}
				t.Logf("--- %s (end of its log)\n%s", name, logs)
			}
		}
		t.Fail()
	}
}

func first(s []string) []string {
	if len(s) > 3 {
		return s[:3]
	}
	return s
}
