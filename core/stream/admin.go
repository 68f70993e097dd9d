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
// XPENDING's extended form and XRANGE always with a COUNT — never over a whole stream.

// UndeliveredCap is as far as LaneStats counts the entries after the group's
// last-delivered id: past it the overview says "at least".
const UndeliveredCap = 1000

// LaneStats describes one lane's stream and its consumer group.
type LaneStats struct {
	Lane            job.Lane
	Length          int64
	Pending         int64
	OldestPendingID string
	OldestIdle      time.Duration
	// Lag is Redis's own figure for what waits (-1: it cannot tell); Undelivered is what
	// does wait, counted after LastDeliveredID up to UndeliveredCap (Capped: at least
	// that many). After a failover the two may differ (progress.go).
	Lag               int64
	Undelivered       int64
	UndeliveredCapped bool
	LastDeliveredID   string
	Consumers         int64
	GroupExists       bool
}

// LaneStats reads a lane's stream length, group lag, pending summary, the entries after
// the group's last-delivered id (counted up to UndeliveredCap) and the idle time of its
// oldest pending entry: one round trip, then one for the count and one for that entry.
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
	if !st.GroupExists {
		return st, nil
	}
	n, err := s.Undelivered(ctx, lane, st.LastDeliveredID, UndeliveredCap+1)
	if err != nil {
		return st, fmt.Errorf("lane stats %s: %w", lane, err)
	}
	st.Undelivered, st.UndeliveredCapped = min(n, UndeliveredCap), n > UndeliveredCap
	if st.Pending == 0 {
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
