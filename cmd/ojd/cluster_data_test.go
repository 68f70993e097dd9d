//go:build linux

package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"oj/core/testenv"
)

// The cluster test's data host: PostgreSQL primary and standby, Redis with Sentinels
// (or a Redis Cluster), its TLS and ACL checks, and MinIO.

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
