package stream

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"oj/core/job"
)

// Streams is the Redis side of the pipeline.
type Streams struct {
	rdb  redis.UniversalClient
	Keys Keys
}

// New wraps a Redis client.
func New(rdb redis.UniversalClient, keys Keys) *Streams { return &Streams{rdb: rdb, Keys: keys} }

// Client exposes the underlying client (health checks, admin queries).
func (s *Streams) Client() redis.UniversalClient { return s.rdb }

// Entry is a job entry read from a lane stream.
type Entry struct {
	ID           string
	SubmissionID string
	TraceID      string
	// Malformed says why the entry cannot be a job (no submission id, or not a UUID);
	// empty for a well-formed entry. A malformed entry is never claimed: PostgreSQL would
	// refuse the whole claim batch it is in, and reclaim would bring it back forever.
	Malformed string
}

func toEntry(m redis.XMessage) Entry {
	e := Entry{ID: m.ID}
	sid, ok := m.Values[FieldSubmission]
	e.SubmissionID, _ = sid.(string)
	e.TraceID, _ = m.Values[FieldTrace].(string)
	e.check(ok)
	return e
}

// check sets Malformed; hasID says whether the submission field was present at all.
func (e *Entry) check(hasID bool) {
	switch {
	case !hasID:
		e.Malformed = "no " + FieldSubmission + " field"
	case !isUUID(e.SubmissionID):
		e.Malformed = fmt.Sprintf("%s field is not a UUID: %.40q", FieldSubmission, e.SubmissionID)
	}
}

// isUUID accepts the canonical text form PostgreSQL's uuid output and the dispatcher use
// (8-4-4-4-12 hex digits), a strict subset of what PostgreSQL's uuid input accepts.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// EnsureGroup creates the consumer group of lane's stream (and the stream) if missing. The
// group starts at id 0 so entries added before it existed — for instance right after
// Redis lost its data — are still delivered.
func (s *Streams) EnsureGroup(ctx context.Context, lane job.Lane) error {
	err := s.rdb.XGroupCreateMkStream(ctx, s.Keys.Jobs(lane), Group, "0").Err()
	if err != nil && !strings.Contains(err.Error(), "BUSYGROUP") {
		return fmt.Errorf("create group on %s: %w", s.Keys.Jobs(lane), err)
	}
	return nil
}

// IsNoGroup reports whether err says the stream or group is gone (Redis lost its data).
func IsNoGroup(err error) bool { return err != nil && strings.Contains(err.Error(), "NOGROUP") }

// Add is one entry to append.
type Add struct {
	Stream       string
	SubmissionID string
	TraceID      string
}

// AddBatch appends entries in one pipeline and returns each one's entry id, or its error.
func (s *Streams) AddBatch(ctx context.Context, adds []Add) ([]string, []error) {
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.StringCmd, len(adds))
	for i, a := range adds {
		cmds[i] = pipe.XAdd(ctx, &redis.XAddArgs{Stream: a.Stream, Values: []any{FieldSubmission, a.SubmissionID, FieldTrace, a.TraceID}})
	}
	_, _ = pipe.Exec(ctx) // per-command errors are read below
	ids := make([]string, len(adds))
	errs := make([]error, len(adds))
	for i, c := range cmds {
		ids[i], errs[i] = c.Result()
	}
	return ids, errs
}

// Read delivers up to count new entries of lane to consumer, blocking at most block
// (always finite, so shutdown is never stuck in Redis).
func (s *Streams) Read(ctx context.Context, lane job.Lane, consumer string, count int, block time.Duration) ([]Entry, error) {
	if block <= 0 {
		block = time.Second
	}
	res, err := s.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
		Group: Group, Consumer: consumer, Streams: []string{s.Keys.Jobs(lane), ">"}, Count: int64(count), Block: block,
	}).Result()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", lane, err)
	}
	var out []Entry
	for _, st := range res {
		for _, m := range st.Messages {
			out = append(out, toEntry(m))
		}
	}
	return out, nil
}

// Ack acknowledges entries of lane (invariant 5: only after PostgreSQL decided their fate).
func (s *Streams) Ack(ctx context.Context, lane job.Lane, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	if err := s.rdb.XAck(ctx, s.Keys.Jobs(lane), Group, ids...).Err(); err != nil {
		return fmt.Errorf("ack %s: %w", lane, err)
	}
	return nil
}

// Drop acknowledges and deletes malformed entries of lane: no worker can ever judge them,
// so they must neither stay pending (reclaim would bring them back forever) nor wait in
// the stream for a safe trim.
func (s *Streams) Drop(ctx context.Context, lane job.Lane, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	key := s.Keys.Jobs(lane)
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.XAck(ctx, key, Group, ids...)
		p.XDel(ctx, key, ids...)
		return nil
	})
	if err != nil {
		return fmt.Errorf("drop from %s: %w", lane, err)
	}
	return nil
}

// AutoClaim takes over up to count entries of lane idle for at least minIdle, scanning from
// start. It sends the raw XAUTOCLAIM because Redis 7 answers a third element, the ids of
// pending entries that were deleted from the stream, which go-redis's helper drops: those
// submissions must go to the reconciler. next is the cursor for the following call ("0-0"
// when the scan wrapped around).
func (s *Streams) AutoClaim(ctx context.Context, lane job.Lane, consumer string, minIdle time.Duration, start string, count int) (next string, claimed []Entry, deleted []string, err error) {
	raw, err := s.rdb.Do(ctx, "XAUTOCLAIM", s.Keys.Jobs(lane), Group, consumer,
		strconv.FormatInt(minIdle.Milliseconds(), 10), start, "COUNT", strconv.Itoa(count)).Slice()
	if err != nil {
		return "", nil, nil, fmt.Errorf("xautoclaim %s: %w", lane, err)
	}
	if len(raw) < 2 {
		return "", nil, nil, fmt.Errorf("xautoclaim %s: unexpected reply of %d elements", lane, len(raw))
	}
	next, _ = raw[0].(string)
	msgs, _ := raw[1].([]any)
	for _, m := range msgs {
		pair, ok := m.([]any)
		if !ok || len(pair) != 2 {
			continue // a nil entry: deleted, also listed in the third element
		}
		e := Entry{}
		e.ID, _ = pair[0].(string)
		fields, _ := pair[1].([]any)
		hasID := false
		for i := 0; i+1 < len(fields); i += 2 {
			k, _ := fields[i].(string)
			v, _ := fields[i+1].(string)
			switch k {
			case FieldSubmission:
				e.SubmissionID, hasID = v, true
			case FieldTrace:
				e.TraceID = v
			}
		}
		e.check(hasID)
		claimed = append(claimed, e)
	}
	if len(raw) >= 3 {
		ids, _ := raw[2].([]any)
		for _, id := range ids {
			if s, ok := id.(string); ok {
				deleted = append(deleted, s)
			}
		}
	}
	return next, claimed, deleted, nil
}

// Alive reports, for each entry id of lane, whether the entry still needs no help: it is
// in the stream and either not yet delivered to the group or pending (so reclaim will see
// it). A false answer means the submission it carried depends on the reconciler.
func (s *Streams) Alive(ctx context.Context, lane job.Lane, ids []string) ([]bool, error) {
	key := s.Keys.Jobs(lane)
	lastDelivered := ""
	groups, err := s.rdb.XInfoGroups(ctx, key).Result()
	if err != nil && !isNoSuchKey(err) {
		return nil, fmt.Errorf("alive %s: %w", lane, err)
	}
	for _, g := range groups {
		if g.Name == Group {
			lastDelivered = g.LastDeliveredID
		}
	}
	pipe := s.rdb.Pipeline()
	ranges := make([]*redis.XMessageSliceCmd, len(ids))
	pend := make([]*redis.XPendingExtCmd, len(ids))
	for i, id := range ids {
		if id == "" {
			continue
		}
		ranges[i] = pipe.XRangeN(ctx, key, id, id, 1)
		if lastDelivered != "" {
			pend[i] = pipe.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: key, Group: Group, Start: id, End: id, Count: 1})
		}
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) && !isNoSuchKey(err) && !IsNoGroup(err) {
		return nil, fmt.Errorf("alive %s: %w", lane, err)
	}
	out := make([]bool, len(ids))
	for i, id := range ids {
		if ranges[i] == nil {
			continue
		}
		if msgs, err := ranges[i].Result(); err != nil || len(msgs) == 0 {
			continue
		}
		if lastDelivered == "" || CompareIDs(id, lastDelivered) > 0 {
			out[i] = true
			continue
		}
		if p, err := pend[i].Result(); err == nil && len(p) > 0 {
			out[i] = true
		}
	}
	return out, nil
}

func isNoSuchKey(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "no such key") || strings.Contains(err.Error(), "ERR no such"))
}

// CompareIDs orders two stream entry ids ("ms-seq").
func CompareIDs(a, b string) int {
	am, as := splitID(a)
	bm, bs := splitID(b)
	switch {
	case am != bm:
		if am < bm {
			return -1
		}
		return 1
	case as != bs:
		if as < bs {
			return -1
		}
		return 1
	}
	return 0
}

func splitID(id string) (uint64, uint64) {
	ms, seq, _ := strings.Cut(id, "-")
	m, _ := strconv.ParseUint(ms, 10, 64)
	s, _ := strconv.ParseUint(seq, 10, 64)
	return m, s
}

// DeleteIdleConsumers removes lane's consumers that hold no pending entry and have been
// idle for at least idle — the names of worker processes that are gone (each process
// gets a fresh name). A consumer with pending entries is kept: reclaim moves them first.
func (s *Streams) DeleteIdleConsumers(ctx context.Context, lane job.Lane, idle time.Duration, keep string) (int, error) {
	key := s.Keys.Jobs(lane)
	consumers, err := s.rdb.XInfoConsumers(ctx, key, Group).Result()
	if err != nil {
		return 0, fmt.Errorf("consumers of %s: %w", lane, err)
	}
	n := 0
	for _, c := range consumers {
		if c.Name == keep || c.Pending > 0 || c.Idle < idle {
			continue
		}
		// DELCONSUMER answers how many pending entries it dropped; re-check that it is 0
		// is not possible atomically, but an entry delivered meanwhile goes to the reader
		// (a live consumer), never to this idle name.
		if err := s.rdb.XGroupDelConsumer(ctx, key, Group, c.Name).Err(); err != nil {
			return n, fmt.Errorf("delete consumer %s of %s: %w", c.Name, lane, err)
		}
		n++
	}
	return n, nil
}
