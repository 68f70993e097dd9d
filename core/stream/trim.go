package stream

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"oj/core/job"
)

// TrimResult reports a trim.
type TrimResult struct {
	Before int64  `json:"length_before"`
	After  int64  `json:"length_after"`
	MinID  string `json:"min_id,omitempty"` // the oldest entry kept (safe trim)
}

// SafeTrimID is the oldest entry of lane that is still needed: the oldest pending entry,
// or else the oldest entry not yet delivered to the group. Everything older can go
// (invariant 9). ok is false when nothing is needed and the stream may be emptied.
func (s *Streams) SafeTrimID(ctx context.Context, lane job.Lane) (id string, ok bool, err error) {
	key := s.Keys.Jobs(lane)
	groups, err := s.rdb.XInfoGroups(ctx, key).Result()
	if err != nil {
		return "", false, fmt.Errorf("safe trim id %s: %w", lane, err)
	}
	lastDelivered := "0-0"
	hasGroup := false
	for _, g := range groups {
		if g.Name == Group {
			lastDelivered, hasGroup = g.LastDeliveredID, true
		}
	}
	if !hasGroup {
		return "", false, fmt.Errorf("safe trim %s: consumer group %s missing: nothing is trimmed without it", lane, Group)
	}
	pending, err := s.rdb.XPending(ctx, key, Group).Result()
	if err != nil {
		return "", false, fmt.Errorf("safe trim id %s: %w", lane, err)
	}
	if pending.Count > 0 {
		return pending.Lower, true, nil
	}
	// Nothing pending: keep everything after the last delivered entry.
	next, err := s.rdb.XRangeN(ctx, key, "("+lastDelivered, "+", 1).Result()
	if err != nil {
		return "", false, fmt.Errorf("safe trim id %s: %w", lane, err)
	}
	if len(next) == 0 {
		return "", false, nil
	}
	return next[0].ID, true, nil
}

// TrimSafe drops every entry of lane older than the oldest one still needed. With dryRun it
// only reports what the length would become.
func (s *Streams) TrimSafe(ctx context.Context, lane job.Lane, dryRun bool) (TrimResult, error) {
	key := s.Keys.Jobs(lane)
	var r TrimResult
	var err error
	if r.Before, err = s.rdb.XLen(ctx, key).Result(); err != nil {
		return r, fmt.Errorf("trim %s: %w", lane, err)
	}
	id, ok, err := s.SafeTrimID(ctx, lane)
	if err != nil {
		return r, err
	}
	if !ok {
		// Everything was delivered and acked: trim to the id after the last entry.
		id = "+"
		last, err := s.rdb.XRevRangeN(ctx, key, "+", "-", 1).Result()
		if err != nil {
			return r, fmt.Errorf("trim %s: %w", lane, err)
		}
		if len(last) == 0 {
			return TrimResult{Before: r.Before, After: r.Before}, nil
		}
		ms, seq := splitID(last[0].ID)
		id = fmt.Sprintf("%d-%d", ms, seq+1)
	}
	r.MinID = id
	if dryRun {
		older, err := s.countBefore(ctx, key, id)
		if err != nil {
			return r, err
		}
		r.After = r.Before - older
		return r, nil
	}
	if err := s.rdb.XTrimMinID(ctx, key, id).Err(); err != nil {
		return r, fmt.Errorf("trim %s: %w", lane, err)
	}
	if r.After, err = s.rdb.XLen(ctx, key).Result(); err != nil {
		return r, fmt.Errorf("trim %s: %w", lane, err)
	}
	return r, nil
}

// countBefore counts entries older than id, in pages (only dry runs need the number).
func (s *Streams) countBefore(ctx context.Context, key, id string) (int64, error) {
	var n int64
	start := "-"
	for {
		page, err := s.rdb.XRangeN(ctx, key, start, "("+id, 1000).Result()
		if err != nil {
			return 0, fmt.Errorf("count entries: %w", err)
		}
		n += int64(len(page))
		if len(page) < 1000 {
			return n, nil
		}
		start = "(" + page[len(page)-1].ID
	}
}

// TrimMaxLen keeps only the newest maxLen entries — which may drop entries still pending
// or undelivered; the API refuses it unless asked for explicitly, and the reconciler
// re-drives what it drops.
func (s *Streams) TrimMaxLen(ctx context.Context, lane job.Lane, maxLen int64, dryRun bool) (TrimResult, error) {
	key := s.Keys.Jobs(lane)
	var r TrimResult
	var err error
	if r.Before, err = s.rdb.XLen(ctx, key).Result(); err != nil {
		return r, fmt.Errorf("trim %s: %w", lane, err)
	}
	if dryRun {
		r.After = min(r.Before, maxLen)
		return r, nil
	}
	if err := s.rdb.XTrimMaxLen(ctx, key, maxLen).Err(); err != nil && err != redis.Nil {
		return r, fmt.Errorf("trim %s: %w", lane, err)
	}
	r.After, err = s.rdb.XLen(ctx, key).Result()
	return r, err
}
