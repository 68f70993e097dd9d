package stream

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"oj/core/job"
)

// The admin side of the streams: what ojctl's overview, PEL and workers views show.
// Every query is bounded: XLEN, XINFO GROUPS/CONSUMERS, XPENDING's summary form, and
// XPENDING's extended form always with a COUNT — never an XRANGE over a whole stream.

// LaneStats describes one lane's stream and its consumer group.
type LaneStats struct {
	Lane            job.Lane
	Length          int64
	Pending         int64
	OldestPendingID string
	OldestIdle      time.Duration
	Lag             int64
	LastDeliveredID string
	Consumers       int64
	GroupExists     bool
}

// LaneStats reads a lane's stream length, group lag, pending summary and the idle time of
// its oldest pending entry, in one round trip plus one for that entry.
func (s *Streams) LaneStats(ctx context.Context, lane job.Lane) (LaneStats, error) {
	key := s.Keys.Jobs(lane)
	st := LaneStats{Lane: lane}
	pipe := s.rdb.Pipeline()
	xlen := pipe.XLen(ctx, key)
	groups := pipe.XInfoGroups(ctx, key)
	_, _ = pipe.Exec(ctx)
	var err error
	if st.Length, err = xlen.Result(); err != nil {
		return st, fmt.Errorf("lane stats %s: %w", lane, err)
	}
	gs, err := groups.Result()
	if err != nil {
		if isNoSuchKey(err) {
			return st, nil
		}
		return st, fmt.Errorf("lane stats %s: %w", lane, err)
	}
	for _, g := range gs {
		if g.Name != Group {
			continue
		}
		st.GroupExists = true
		st.Pending, st.Lag, st.LastDeliveredID, st.Consumers = g.Pending, g.Lag, g.LastDeliveredID, g.Consumers
	}
	if !st.GroupExists || st.Pending == 0 {
		return st, nil
	}
	oldest, err := s.rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: key, Group: Group, Start: "-", End: "+", Count: 1}).Result()
	if err != nil && !IsNoGroup(err) {
		return st, fmt.Errorf("lane stats %s: %w", lane, err)
	}
	if len(oldest) > 0 {
		st.OldestPendingID, st.OldestIdle = oldest[0].ID, oldest[0].Idle
	}
	return st, nil
}

// StreamLength is XLEN of any stream key (0 when it does not exist).
func (s *Streams) StreamLength(ctx context.Context, key string) (int64, error) {
	n, err := s.rdb.XLen(ctx, key).Result()
	if err != nil {
		return 0, fmt.Errorf("xlen %s: %w", key, err)
	}
	return n, nil
}

// PendingEntry is one entry of a lane's pending entries list.
type PendingEntry struct {
	ID           string
	SubmissionID string
	Consumer     string
	Idle         time.Duration
	Deliveries   int64
	// Deleted is true when the entry is pending but no longer in the stream (trimmed).
	Deleted bool
	// Malformed says why the entry cannot be a job (see Entry.Malformed); workers drop
	// such entries, and they must not be handed to PostgreSQL.
	Malformed string
}

// Pending lists up to count pending entries of lane idle for at least minIdle, with ids
// after start ("" or "-" for the beginning), and the submission each carries.
func (s *Streams) Pending(ctx context.Context, lane job.Lane, minIdle time.Duration, start string, count int) ([]PendingEntry, error) {
	key := s.Keys.Jobs(lane)
	if start == "" {
		start = "-"
	}
	ps, err := s.rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: key, Group: Group, Idle: minIdle,
		Start: start, End: "+", Count: int64(count)}).Result()
	if err != nil {
		if IsNoGroup(err) || isNoSuchKey(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("pending %s: %w", lane, err)
	}
	if len(ps) == 0 {
		return nil, nil
	}
	pipe := s.rdb.Pipeline()
	ranges := make([]*redis.XMessageSliceCmd, len(ps))
	for i, p := range ps {
		ranges[i] = pipe.XRangeN(ctx, key, p.ID, p.ID, 1)
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("pending %s: %w", lane, err)
	}
	out := make([]PendingEntry, len(ps))
	for i, p := range ps {
		out[i] = PendingEntry{ID: p.ID, Consumer: p.Consumer, Idle: p.Idle, Deliveries: p.RetryCount}
		msgs, _ := ranges[i].Result()
		if len(msgs) == 0 {
			out[i].Deleted = true
			continue
		}
		e := toEntry(msgs[0])
		out[i].SubmissionID, out[i].Malformed = e.SubmissionID, e.Malformed
	}
	return out, nil
}

// Consumer is one consumer of a lane's group.
type Consumer struct {
	Name     string
	Pending  int64
	Idle     time.Duration
	Inactive time.Duration
}

// Consumers lists the consumers of lane's group (XINFO CONSUMERS).
func (s *Streams) Consumers(ctx context.Context, lane job.Lane) ([]Consumer, error) {
	cs, err := s.rdb.XInfoConsumers(ctx, s.Keys.Jobs(lane), Group).Result()
	if err != nil {
		if IsNoGroup(err) || isNoSuchKey(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("consumers %s: %w", lane, err)
	}
	out := make([]Consumer, len(cs))
	for i, c := range cs {
		out[i] = Consumer{Name: c.Name, Pending: c.Pending, Idle: c.Idle, Inactive: c.Inactive}
	}
	return out, nil
}

// RedisVersion is the server's redis_version.
func (s *Streams) RedisVersion(ctx context.Context) (string, error) {
	info, err := s.rdb.Info(ctx, "server").Result()
	if err != nil {
		return "", fmt.Errorf("redis info: %w", err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
			return v, nil
		}
	}
	return "", nil
}

// GroupProgress is how far the workers' group has read a lane's stream: Waiting entries
// were added and not yet delivered to any worker (-1 when Redis cannot tell, as after
// entries were deleted from the middle of the stream), Read counts the entries delivered
// so far (for a rate), Pending the entries delivered and not yet acknowledged (read by a
// worker, being judged, or judged and about to be acknowledged). Exists is false when the
// stream or its group does not exist (Redis lost them): nothing waits then.
type GroupProgress struct {
	Waiting int64
	Read    int64
	Pending int64
	Exists  bool
}

// Progress reads lane's GroupProgress with one XINFO GROUPS.
func (s *Streams) Progress(ctx context.Context, lane job.Lane) (GroupProgress, error) {
	gs, err := s.rdb.XInfoGroups(ctx, s.Keys.Jobs(lane)).Result()
	if err != nil {
		if isNoSuchKey(err) {
			return GroupProgress{}, nil
		}
		return GroupProgress{}, fmt.Errorf("group progress %s: %w", lane, err)
	}
	for _, g := range gs {
		if g.Name == Group {
			return GroupProgress{Waiting: g.Lag, Read: g.EntriesRead, Pending: g.Pending, Exists: true}, nil
		}
	}
	return GroupProgress{}, nil
}
