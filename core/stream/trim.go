package stream

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"oj/core/job"
)

// TrimResult reports a trim.
type TrimResult struct {
	Before int64
	After  int64
	MinID  string // the oldest entry kept (safe trim)
}

// safeTrimScript finds the oldest entry of a stream that the group still needs and, unless
// asked for a dry run, trims everything older — in one script, so that no XADD, delivery
// or ack can fall between the reads that decide the id and the XTRIM that uses it
// (invariant 9). What is needed: the oldest pending entry; with nothing pending, the
// oldest entry after the group's last-delivered id. With neither, everything up to the
// last-delivered id was delivered and acked, so the trim keeps whatever comes after it:
// an entry added later always has a larger id.
//
// KEYS[1] the stream; ARGV[1] the group; ARGV[2] "1" for a dry run.
// Returns {length before, min id or "" when the stream has no group entry to keep, length after}.
var safeTrimScript = redis.NewScript(`
local key, group, dry = KEYS[1], ARGV[1], ARGV[2] == "1"
local before = redis.call("XLEN", key)
local last = nil
for _, g in ipairs(redis.call("XINFO", "GROUPS", key)) do
  local f = {}
  for i = 1, #g, 2 do f[g[i]] = g[i + 1] end
  if f["name"] == group then last = f["last-delivered-id"] end
end
if last == nil then
  return redis.error_reply("NOGROUP consumer group " .. group .. " missing: nothing is trimmed without it")
end
local minid
local pending = redis.call("XPENDING", key, group)
if pending[1] > 0 then
  minid = pending[2]
else
  local nxt = redis.call("XRANGE", key, "(" .. last, "+", "COUNT", 1)
  if #nxt > 0 then
    minid = nxt[1][1]
  else
    -- Nothing undelivered: keep what is after the last-delivered id. A sequence too long
    -- for Lua's numbers keeps that one (acked) entry instead.
    local ms, seq = string.match(last, "^(%d+)-(%d+)$")
    if ms == nil then return redis.error_reply("bad last-delivered id " .. last) end
    if #seq < 15 then minid = ms .. "-" .. string.format("%d", tonumber(seq) + 1) else minid = last end
  end
end
if dry then return {before, minid, before} end
redis.call("XTRIM", key, "MINID", minid)
return {before, minid, redis.call("XLEN", key)}
`)

// TrimSafe drops every entry of lane older than the oldest one still needed. With dryRun it
// only reports what the length would become.
func (s *Streams) TrimSafe(ctx context.Context, lane job.Lane, dryRun bool) (TrimResult, error) {
	key := s.Keys.Jobs(lane)
	dry := "0"
	if dryRun {
		dry = "1"
	}
	v, err := safeTrimScript.Run(ctx, s.rdb, []string{key}, Group, dry).Slice()
	if err != nil {
		return TrimResult{}, fmt.Errorf("safe trim %s: %w", lane, err)
	}
	if len(v) != 3 {
		return TrimResult{}, fmt.Errorf("safe trim %s: unexpected reply %v", lane, v)
	}
	before, _ := v[0].(int64)
	minID, _ := v[1].(string)
	after, _ := v[2].(int64)
	r := TrimResult{Before: before, After: after, MinID: minID}
	if dryRun {
		// Counted outside the script: a long count must not block Redis, and a dry run
		// changes nothing, so a count that is a moment old is still an honest answer.
		older, err := s.countBefore(ctx, key, minID)
		if err != nil {
			return r, err
		}
		r.After = max(r.Before-older, 0)
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
