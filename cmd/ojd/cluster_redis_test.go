package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"oj/core/testenv"
)

// The Redis faults of the cluster test: a Sentinel master SIGKILLed (twice in a run), a
// Cluster shard's master crashed.

// killRedisMaster SIGKILLs the master the Sentinels name and waits until they promote
// a replica.
func (c *cluster) killRedisMaster(ctx context.Context) {
	t := c.t
	master := func() string {
		sc := redis.NewClient(c.redisOptions(c.sentinel[0]))
		defer sc.Close()
		a, err := sc.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "oj").StringSlice()
		if err != nil || len(a) != 2 {
			return ""
		}
		return a[0] + ":" + a[1]
	}
	c.oldRedis = master()
	_, port, _ := strings.Cut(c.oldRedis, ":")
	c.kill("redis-" + port)
	c.redisKilled = append(c.redisKilled, c.oldRedis)
	testenv.WaitFor(t, time.Minute, "the Sentinels promote a replica", func() error {
		if m := master(); m == "" || m == c.oldRedis {
			return fmt.Errorf("master still %q", m)
		}
		return nil
	})
	t.Logf("Redis master %s SIGKILLed; the Sentinels promoted %s", c.oldRedis, master())
}

// segfaultLaneMaster crashes the master serving lane's slot with DEBUG SEGFAULT and waits
// until a replica serves the slot.
func (c *cluster) segfaultLaneMaster(ctx context.Context, lane string) {
	key := "oj:{" + lane + "}:jobs"
	c.oldRedis = c.slotMaster(ctx, key)
	nc := redis.NewClient(&redis.Options{Addr: c.oldRedis, Dialer: c.dialIn("api"), MaxRetries: -1})
	_ = nc.Do(ctx, "DEBUG", "SEGFAULT").Err() // the connection drops: no answer
	nc.Close()
	_, port, _ := strings.Cut(c.oldRedis, ":")
	p := c.proc("redis-" + port)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		c.t.Fatalf("%s still running 30 s after DEBUG SEGFAULT", c.oldRedis)
	}
	testenv.WaitFor(c.t, time.Minute, "a replica serves the "+lane+" lane's slot", func() error {
		if m := c.slotMaster(ctx, key); m == "" || m == c.oldRedis {
			return fmt.Errorf("slot still on %q", m)
		}
		return nil
	})
	c.t.Logf("Redis master %s of the %s lane crashed (DEBUG SEGFAULT); %s took over", c.oldRedis, lane, c.slotMaster(ctx, key))
}

// restartKilledRedis starts the master killed last again, from its own configuration
// and append-only file: the Sentinels make it a replica of the master they promoted. It
// waits until that master has both replicas again, so that the next failover has one
// in sync to promote.
func (c *cluster) restartKilledRedis(ctx context.Context) {
	_, port, _ := strings.Cut(c.oldRedis, ":")
	name := "redis-" + port
	c.start(name, "data", nil, "redis-server", filepath.Join(c.dir, name, "redis.conf"))
	testenv.WaitFor(c.t, 2*time.Minute, name+" back as a replica, both replicas in sync", func() error {
		sc := redis.NewClient(c.redisOptions(c.sentinel[0]))
		a, err := sc.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "oj").StringSlice()
		sc.Close()
		if err != nil || len(a) != 2 {
			return fmt.Errorf("master: %v %v", a, err)
		}
		mc := redis.NewClient(c.redisOptions(a[0] + ":" + a[1]))
		info, err := mc.Info(ctx, "replication").Result()
		mc.Close()
		if err != nil {
			return err
		}
		if online := strings.Count(info, ",state=online,"); online != 2 {
			return fmt.Errorf("master %s:%s has %d replicas online", a[0], a[1], online)
		}
		return nil
	})
	c.t.Logf("%s restarted: a replica of the new master again", c.oldRedis)
}
