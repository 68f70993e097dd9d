//go:build linux

package main

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"oj/core/api/client"
	"oj/core/wire"
)

// The cluster test's load and faults: the mix of submissions and the faults injected
// while it runs.

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
