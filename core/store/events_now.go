package store

import (
	"context"
	"fmt"
	"time"
)

// FeedNow is where a follower asking for since=now starts: Cursor, the newest event that
// had committed when it was called and that no later-committing event precedes in feed
// order, and Snapshot, the snapshot of the call (pg_snapshot's text), whose committed
// transactions' events the first page leaves out (FeedFilter.Unseen).
//
// The feed's order is (txid, id), and a transaction with a smaller txid may commit after
// the call while one with a larger txid committed before it. A head read at once stops
// below every transaction still open at the call (ReadFeedBounds), so a follower that
// dropped before its first event and resumed from it would be handed events older than
// the call. FeedNow first waits, at most wait, until every transaction open at the call
// has ended; then the events below the call's xmax are final, and the cursor is the
// newest of them visible to the call that is below the oldest one it did not see. Only
// when the two interleave (an older transaction committing after the call, a newer one
// before it) can a resume from the cursor bring back an event older than the call; it
// never skips one. A wait that runs out leaves the cursor below the transactions still
// open, as ReadFeedBounds would.
func FeedNow(ctx context.Context, db DB, wait time.Duration) (Cursor, string, error) {
	var snap string
	if err := db.QueryRow(ctx, `SELECT pg_current_snapshot()::text`).Scan(&snap); err != nil {
		return Cursor{}, "", fmt.Errorf("feed now: %w", err)
	}
	deadline := time.Now().Add(wait)
	for {
		var ended bool
		if err := db.QueryRow(ctx, `SELECT pg_snapshot_xmin(pg_current_snapshot()) >= pg_snapshot_xmax($1::text::pg_snapshot)`,
			snap).Scan(&ended); err != nil {
			return Cursor{}, "", fmt.Errorf("feed now: %w", err)
		}
		if ended || !time.Now().Before(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return Cursor{}, "", fmt.Errorf("feed now: %w", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	// Below the current xmin every event is final. unseen: the first of them the call
	// did not see (none lies below the call's own xmin); seen: the newest it saw, below
	// that one. Ordered as xid8, cast to text only once picked (see ReadFeedBounds).
	var tx *string
	var id *int64
	err := db.QueryRow(ctx, `
		WITH c AS (SELECT $1::text::pg_snapshot AS s, pg_snapshot_xmin(pg_current_snapshot()) AS final),
		     unseen AS (
		        SELECT e.txid, e.id FROM events e, c
		         WHERE e.txid >= pg_snapshot_xmin(c.s) AND e.txid < c.final AND NOT pg_visible_in_snapshot(e.txid, c.s)
		         ORDER BY e.txid, e.id LIMIT 1)
		SELECT s.txid::text, s.id FROM (SELECT) one LEFT JOIN LATERAL (
		        SELECT e.txid, e.id FROM events e, c
		         WHERE e.txid < c.final AND pg_visible_in_snapshot(e.txid, c.s)
		           AND NOT EXISTS (SELECT 1 FROM unseen u WHERE (e.txid, e.id) > (u.txid, u.id))
		         ORDER BY e.txid DESC, e.id DESC LIMIT 1) s ON true`, snap).Scan(&tx, &id)
	if err != nil {
		return Cursor{}, "", fmt.Errorf("feed now: %w", err)
	}
	c, err := cursorOf(tx, id)
	if err != nil {
		return Cursor{}, "", fmt.Errorf("feed now: %w", err)
	}
	return c, snap, nil
}
