package stream_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"oj/core/job"
	"oj/core/stream"
	"oj/core/testenv"
)

func TestAlive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Streams(t, testenv.RedisAddr(t))
	lane := job.LaneHeavy
	// No stream at all: nothing is alive.
	alive, err := s.Alive(ctx, lane, []string{"1-0"})
	if err != nil || alive[0] {
		t.Fatalf("missing stream: %v %v", alive, err)
	}
	if err := s.EnsureGroup(ctx, lane); err != nil {
		t.Fatal(err)
	}
	adds := make([]stream.Add, 4)
	for i := range adds {
		adds[i] = stream.Add{Stream: s.Keys.Jobs(lane), SubmissionID: "x"}
	}
	ids, _ := s.AddBatch(ctx, adds)
	read, err := s.Read(ctx, lane, "c", 2, 10*time.Millisecond) // ids[0], ids[1] pending
	if err != nil || len(read) != 2 {
		t.Fatal(read, err)
	}
	if err := s.Ack(ctx, lane, ids[0]); err != nil {
		t.Fatal(err)
	}
	alive, err = s.Alive(ctx, lane, []string{ids[0], ids[1], ids[2], "1-0", ""})
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{false, true, true, false, false}
	for i := range want {
		if alive[i] != want[i] {
			t.Fatalf("alive = %v, want %v", alive, want)
		}
	}
}

func TestCompareIDs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"1-0", "1-0", 0}, {"1-1", "1-0", 1}, {"2-0", "10-0", -1}, {"1795401414997-102", "1795401414997-99", 1},
	}
	for _, tc := range tests {
		if got := stream.CompareIDs(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareIDs(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestDeleteIdleConsumers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lane := job.LaneLight
	s := grouped(t, lane)
	add := stream.Add{Stream: s.Keys.Jobs(lane), SubmissionID: "x"}
	s.AddBatch(ctx, []stream.Add{add, add, add})
	if _, err := s.Read(ctx, lane, "holder", 1, 10*time.Millisecond); err != nil { // 1 pending
		t.Fatal(err)
	}
	// Consumers exist once they were delivered something; these two acked theirs.
	for _, c := range []string{"gone", "me"} {
		es, err := s.Read(ctx, lane, c, 1, 10*time.Millisecond)
		if err != nil || len(es) != 1 {
			t.Fatal(es, err)
		}
		if err := s.Ack(ctx, lane, es[0].ID); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(30 * time.Millisecond)
	n, err := s.DeleteIdleConsumers(ctx, lane, 20*time.Millisecond, "me")
	if err != nil || n != 1 {
		t.Fatalf("deleted %d, %v; want only the idle consumer without pending entries", n, err)
	}
	cs, _ := s.Client().XInfoConsumers(ctx, s.Keys.Jobs(lane), stream.Group).Result()
	if len(cs) != 2 {
		t.Fatalf("consumers left: %+v", cs)
	}
}

// Entries that cannot be jobs are marked, on the read and on the reclaim path alike, and
// Drop takes them out of the pending list and the stream.
func TestMalformedEntries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lane := job.LaneLight
	s := grouped(t, lane)
	key := s.Keys.Jobs(lane)
	good := "0190a6c2-7b3e-7f41-9d2a-3c4b5d6e7f80"
	values := [][]any{
		{stream.FieldSubmission, good, stream.FieldTrace, "t"},
		{stream.FieldTrace, "t"},
		{stream.FieldSubmission, "not-a-uuid"},
		{stream.FieldSubmission, ""},
		{stream.FieldSubmission, "0190a6c2-7b3e-7f41-9d2a-3c4b5d6e7f8\x00"},
		{stream.FieldSubmission, "{0190a6c2-7b3e-7f41-9d2a-3c4b5d6e7f80}"},
	}
	for _, v := range values {
		if err := s.Client().XAdd(ctx, &redis.XAddArgs{Stream: key, Values: v}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	check := func(path string, entries []stream.Entry) []string {
		t.Helper()
		if len(entries) != len(values) {
			t.Fatalf("%s: %d entries, want %d", path, len(entries), len(values))
		}
		var bad []string
		for i, e := range entries {
			if (e.Malformed == "") != (i == 0) {
				t.Errorf("%s: entry %d %+v: malformed %q", path, i, values[i], e.Malformed)
			}
			if i > 0 {
				bad = append(bad, e.ID)
			}
		}
		return bad
	}
	read, err := s.Read(ctx, lane, "gone", 10, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	check("read", read)
	_, claimed, _, err := s.AutoClaim(ctx, lane, "reclaimer", 0, "0-0", 10)
	if err != nil {
		t.Fatal(err)
	}
	bad := check("reclaim", claimed)
	pel, err := s.Pending(ctx, lane, 0, "-", 10)
	if err != nil || len(pel) != len(values) {
		t.Fatalf("pending: %d %v", len(pel), err)
	}
	for i, p := range pel {
		if (p.Malformed == "") != (i == 0) {
			t.Errorf("pending entry %d: malformed %q", i, p.Malformed)
		}
	}
	if claimed[0].SubmissionID != good {
		t.Fatalf("good entry: %+v", claimed[0])
	}
	if err := s.Drop(ctx, lane, bad...); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Client().XPending(ctx, key, stream.Group).Result(); err != nil || p.Count != 1 {
		t.Fatalf("pending after drop: %+v %v, want only the good entry", p, err)
	}
	if n, err := s.Client().XLen(ctx, key).Result(); err != nil || n != 1 {
		t.Fatalf("stream length after drop: %d %v, want 1", n, err)
	}
}

// grouped returns streams under a key prefix of the test's own, with lane's consumer group
// created.
func grouped(t *testing.T, lane job.Lane) *stream.Streams {
	t.Helper()
	s := testenv.Streams(t, testenv.RedisAddr(t))
	if err := s.EnsureGroup(context.Background(), lane); err != nil {
		t.Fatal(err)
	}
	return s
}
