package stream

import (
	"context"
	"fmt"

	"oj/core/job"
)

// What waits in a lane's stream for a worker is what follows the group's last-delivered
// id: the entries the next XREADGROUP ">" hands out. Redis's own figure for it, the
// group's lag (entries-added less entries-read), is a counter kept beside the stream, and
// a failover, an XGROUP SETID or deletions leave it wrong or null: after two failovers a
// group was seen reporting lag 20 with nothing after its last-delivered id, which held a
// lane whose window was 6 shut for good. So the entries are counted (XRANGE from just
// after the last-delivered id, with a COUNT: the cost is bounded by what the caller needs
// to know), and the lag is only shown.

// GroupProgress is how far the workers' group has read a lane's stream: LastDeliveredID
// is the last entry handed to a worker, Read counts the entries delivered so far (for a
// rate), Pending the entries delivered and not yet acknowledged (read by a worker, being
// judged, or judged and about to be acknowledged), Lag Redis's own count of what waits
// (-1 when it says it cannot tell; never to be trusted: see Undelivered). Exists is false
// when the stream or its group does not exist (Redis lost them): nothing waits then.
type GroupProgress struct {
	LastDeliveredID string
	Read            int64
	Pending         int64
	Lag             int64
	Exists          bool
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
			return GroupProgress{LastDeliveredID: g.LastDeliveredID, Read: g.EntriesRead, Pending: g.Pending,
				Lag: g.Lag, Exists: true}, nil
		}
	}
	return GroupProgress{}, nil
}

// Undelivered counts the entries of lane's stream after the entry id after (the group's
// last-delivered id, from Progress or LaneStats), up to limit: one XRANGE with a COUNT,
// on the one key. Entries deleted from the stream are not counted; they will not be
// delivered either. A limit under 1 counts nothing.
func (s *Streams) Undelivered(ctx context.Context, lane job.Lane, after string, limit int) (int64, error) {
	if limit < 1 {
		return 0, nil
	}
	if after == "" {
		after = "0-0"
	}
	msgs, err := s.rdb.XRangeN(ctx, s.Keys.Jobs(lane), "("+after, "+", int64(limit)).Result()
	if err != nil {
		return 0, fmt.Errorf("undelivered %s: %w", lane, err)
	}
	return int64(len(msgs)), nil
}
