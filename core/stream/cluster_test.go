package stream_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"oj/core/job"
	"oj/core/stream"
	"oj/core/testenv"
)

// startCluster starts three Redis Cluster masters on 127.0.0.1 sharing the 16384 slots,
// joined with CLUSTER MEET, and waits until every node says cluster_state:ok.
func startCluster(t *testing.T) []*testenv.RedisNode {
	t.Helper()
	ctx := context.Background()
	var nodes []*testenv.RedisNode
	var clients []*redis.Client
	for i := 0; i < 3; i++ {
		n := testenv.StartRedis(t, 0, false, "cluster-enabled yes", "cluster-config-file nodes.conf", "cluster-node-timeout 2000")
		c := redis.NewClient(&redis.Options{Addr: n.Addr()})
		t.Cleanup(func() { c.Close() })
		nodes, clients = append(nodes, n), append(clients, c)
	}
	for i, c := range clients {
		from, to := i*16384/3, (i+1)*16384/3-1
		if err := c.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", from, to).Err(); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			if err := clients[0].ClusterMeet(ctx, "127.0.0.1", fmt.Sprint(nodes[i].Port)).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	testenv.WaitFor(t, 20*time.Second, "cluster_state:ok on every node", func() error {
		for _, c := range clients {
			info, err := c.ClusterInfo(ctx).Result()
			if err != nil || !strings.Contains(info, "cluster_state:ok") {
				return fmt.Errorf("%s: %v %.60q", c.Options().Addr, err, info)
			}
		}
		return nil
	})
	return nodes
}

// Against a three-shard Redis Cluster through redis.mode: cluster, every command oj sends
// runs without a CROSSSLOT error (each transaction and script keeps to one lane's slot),
// the lanes land on more than one shard, a relay batch spanning lanes is split by slot,
// and the settings check reads every master.
func TestCluster(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	began := time.Now()
	nodes := startCluster(t)
	cfg := stream.DefaultConfig()
	cfg.Mode, cfg.Addr = stream.ModeCluster, ""
	for _, n := range nodes[:2] { // seeds: the client learns the third from them
		cfg.Addrs = append(cfg.Addrs, n.Addr())
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	rdb, err := stream.NewClient(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	if err := stream.CheckReach(ctx, rdb); err != nil {
		t.Fatal(err)
	}
	s := stream.New(rdb, stream.Keys{Prefix: "oj"})

	shards := map[string][]job.Lane{}
	for _, lane := range job.Lanes {
		node, err := rdb.(*redis.ClusterClient).MasterForKey(ctx, s.Keys.Jobs(lane))
		if err != nil {
			t.Fatal(err)
		}
		shards[node.Options().Addr] = append(shards[node.Options().Addr], lane)
	}
	if len(shards) < 2 {
		t.Fatalf("every lane on one shard: %v", shards)
	}
	batch := stream.New(rdb, stream.Keys{Prefix: "oj-batch"})
	adds := []stream.Add{{Stream: batch.Keys.DLQ(), SubmissionID: "6f1c2e8a-0b7d-4e55-9a43-2d5a8c1b9e70"}}
	for _, lane := range job.Lanes {
		adds = append(adds, stream.Add{Stream: batch.Keys.Jobs(lane), SubmissionID: "6f1c2e8a-0b7d-4e55-9a43-2d5a8c1b9e70"})
	}
	if _, errs := batch.AddBatch(ctx, adds); errs[0] != nil || errs[1] != nil || errs[2] != nil || errs[3] != nil {
		t.Fatalf("a batch across the lanes' slots: %v", errs)
	}
	exerciseEveryCommand(t, s, rdb)

	// One master evicts: the check names it and the setting, beside appendonly on each.
	evicting := redis.NewClient(&redis.Options{Addr: nodes[2].Addr()})
	defer evicting.Close()
	if err := evicting.ConfigSet(ctx, "maxmemory-policy", "allkeys-lru").Err(); err != nil {
		t.Fatal(err)
	}
	warnings, err := stream.CheckServer(ctx, rdb)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(warnings, "\n")
	if strings.Count(all, "appendonly no") != 3 || strings.Count(all, "maxmemory-policy allkeys-lru") != 1 || len(warnings) != 4 ||
		!strings.Contains(all, "Redis "+nodes[2].Addr()+" has maxmemory-policy allkeys-lru") {
		t.Errorf("settings check over three masters with appendonly no, %s evicting: %q", nodes[2].Addr(), warnings)
	}
	t.Logf("lanes by shard %v; whole test %s", shards, time.Since(began).Round(time.Millisecond))
}
