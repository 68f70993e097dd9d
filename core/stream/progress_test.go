package stream_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"oj/core/job"
	"oj/core/stream"
	"oj/core/testenv"
)

// What waits is counted after the group's last-delivered id, whatever the group's lag
// says: a counter set wrong (as a failover leaves it) and entries deleted after the
// last-delivered id (which Redis's lag then cannot account for) change nothing, and the
// overview's count stops at its cap.
func TestUndeliveredIsCountedNotTakenFromTheLag(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Streams(t, testenv.RedisAddr(t))
	rdb, lane := s.Client(), job.LaneLight
	key := s.Keys.Jobs(lane)
	if err := s.EnsureGroup(ctx, lane); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for range 30 {
		id, err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []any{"filler", 1}}).Result()
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	// Delivered up to the 25th entry, with a counter that says 10 were read: lag 20.
	if err := rdb.Do(ctx, "XGROUP", "SETID", key, stream.Group, ids[24], "ENTRIESREAD", 10).Err(); err != nil {
		t.Fatal(err)
	}
	p, err := s.Progress(ctx, lane)
	if err != nil || !p.Exists || p.Lag != 20 || p.LastDeliveredID != ids[24] {
		t.Fatalf("progress %+v %v, want lag 20 after %s", p, err, ids[24])
	}
	for _, tc := range []struct {
		limit int
		want  int64
	}{{10, 5}, {5, 5}, {3, 3}, {0, 0}} {
		if n, err := s.Undelivered(ctx, lane, p.LastDeliveredID, tc.limit); err != nil || n != tc.want {
			t.Fatalf("undelivered, limit %d: %d %v, want %d", tc.limit, n, err, tc.want)
		}
	}
	if err := rdb.XDel(ctx, key, ids[26], ids[27]).Err(); err != nil {
		t.Fatal(err)
	}
	st, err := s.LaneStats(ctx, lane)
	if err != nil || st.Undelivered != 3 || st.UndeliveredCapped {
		t.Fatalf("lane stats after deletions: %+v %v, want 3 undelivered", st, err)
	}
	pipe := rdb.Pipeline()
	for range stream.UndeliveredCap + 1 {
		pipe.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []any{"filler", 1}})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	st, err = s.LaneStats(ctx, lane)
	if err != nil || st.Undelivered != stream.UndeliveredCap || !st.UndeliveredCapped {
		t.Fatalf("lane stats past the cap: %+v %v", st, err)
	}
}
