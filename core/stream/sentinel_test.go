package stream_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/redis/go-redis/v9"

	"oj/core/job"
	"oj/core/stream"
	"oj/core/testenv"
)

// A master, its replica and a Sentinel on 127.0.0.1; the master is SIGKILLed (an
// automatic failover, not the lossless manual one). oj's client, built from
// redis.mode: sentinel, finds the promoted replica: the lane's stream and its group
// (replicated before the kill) are there, new entries are added and read, and on the way
// the errors were counted and retried with a bounded backoff, never in a tight loop. oj
// talks to the Sentinel as the ACL user the install guide documents for it.
func TestSentinelFailover(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	began := time.Now()
	pair := testenv.StartSentinel(t, aclLine(t, "oj-sentinel", "sentinel-secret"))
	master, replica, sentinel := pair.Master, pair.Replica, pair.Sentinel
	replicaDirect := redis.NewClient(&redis.Options{Addr: replica.Addr(), MaxRetries: -1})
	defer replicaDirect.Close()
	asOJ := redis.NewClient(&redis.Options{Addr: sentinel.Addr(), Username: "oj-sentinel", Password: "sentinel-secret", MaxRetries: -1})
	defer asOJ.Close()
	if err := asOJ.Do(ctx, "SENTINEL", "MASTERS").Err(); err == nil || !strings.Contains(err.Error(), "NOPERM") {
		t.Fatalf("SENTINEL MASTERS as oj-sentinel: %v, want NOPERM (the ACL line is not in force)", err)
	}

	cfg := stream.DefaultConfig()
	cfg.Mode, cfg.Addr, cfg.Addrs, cfg.MasterName = stream.ModeSentinel, "", []string{sentinel.Addr()}, "oj"
	// oj asks the Sentinel as the user the install guide documents for it.
	cfg.SentinelUsername, cfg.SentinelPassword = "oj-sentinel", "sentinel-secret"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	metrics := stream.NewClientMetrics(reg)
	rdb, err := stream.NewClient(cfg, metrics)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	s := stream.New(rdb, stream.Keys{Prefix: testenv.RandomName("t")})
	lane := job.LaneHeavy
	const sid = "6f1c2e8a-0b7d-4e55-9a43-2d5a8c1b9e70"
	add := func() error {
		_, errs := s.AddBatch(ctx, []stream.Add{{Stream: s.Keys.Jobs(lane), SubmissionID: sid}})
		return errs[0]
	}
	if err := s.EnsureGroup(ctx, lane); err != nil {
		t.Fatal(err)
	}
	if err := add(); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Read(ctx, lane, "w1", 10, 100*time.Millisecond); err != nil || len(got) != 1 {
		t.Fatalf("read before the failover: %v %v", got, err)
	}
	// Wait until the replica has it: what an automatic failover loses is what the replica
	// had not received, and this test is about finding the new master.
	if n, err := rdb.Do(ctx, "WAIT", 1, 2000).Int(); err != nil || n != 1 {
		t.Fatalf("WAIT 1: %d %v", n, err)
	}

	master.Kill()
	killed := time.Now()
	tries := 0
	for {
		tries++
		// Each try is bounded, as the daemons' calls are, so that the outage reaches oj's
		// own loop (and the metric) rather than only go-redis's retries.
		tctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		_, errs := s.AddBatch(tctx, []stream.Add{{Stream: s.Keys.Jobs(lane), SubmissionID: sid}})
		cancel()
		err := errs[0]
		if err == nil {
			break
		}
		if stream.IsNoGroup(err) {
			_ = s.EnsureGroup(ctx, lane)
		}
		if time.Since(killed) > 30*time.Second {
			t.Fatalf("no new master 30 s after the kill (%d tries): %v\nsentinel log:\n%s", tries, err, sentinel.Log())
		}
		time.Sleep(job.Backoff(100*time.Millisecond, time.Second, tries))
	}
	recovered := time.Since(killed)
	if role, err := replicaDirect.Do(ctx, "ROLE").Slice(); err != nil || role[0] != "master" {
		t.Fatalf("the replica's role after the failover: %v %v", role, err)
	}
	got, err := s.Read(ctx, lane, "w1", 10, 100*time.Millisecond)
	if err != nil || len(got) != 1 {
		t.Fatalf("read on the new master: %v %v", got, err)
	}
	pending, err := s.Pending(ctx, lane, 0, "-", 10)
	if err != nil || len(pending) != 2 {
		t.Fatalf("pending on the new master: %d entries, %v; want the one read before the kill and the new one", len(pending), err)
	}
	// Bounded backoff: at most one try per 100 ms of outage (plus the first).
	if max := int(recovered/(100*time.Millisecond)) + 2; tries > max {
		t.Errorf("%d tries in %s: a tight loop (want at most %d)", tries, recovered, max)
	}
	counted := errorsByKind(t, reg)
	total := 0
	for kind, n := range counted {
		total += n
		switch kind {
		case stream.KindConnection, stream.KindTimeout, stream.KindReadOnly, stream.KindLoading, stream.KindMasterDown:
		default:
			t.Errorf("%d errors of kind %s counted: not one a failover causes", n, kind)
		}
	}
	if total == 0 || tries < 2 {
		t.Errorf("%d tries, %d errors counted in oj_redis_errors_total: the outage never reached oj", tries, total)
	}
	t.Logf("new master after %s (%d tries); errors by kind %v; whole test %s", recovered.Round(time.Millisecond), tries, counted,
		time.Since(began).Round(time.Millisecond))
}

func errorsByKind(t *testing.T, reg *prometheus.Registry) map[string]int {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, mf := range mfs {
		if mf.GetName() != "oj_redis_errors_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			out[label(m, "kind")] = int(m.GetCounter().GetValue())
		}
	}
	return out
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
