//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"oj/core/api/client"
	"oj/core/judge/problem/problemtest"
	"oj/core/testenv"
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
