package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The results feed: rows of table events, written by triggers in the transaction of each
// change they report (00006_integration.sql), read in commit-safe order. See
// ReadFeed for why a follower never skips a row.

// Cursor is a position in the feed: an event's transaction id and row id. The feed is
// ordered by (TxID, ID); the zero Cursor is before every event.
type Cursor struct {
	TxID uint64
	ID   int64
}

// String is the cursor as the API gives it out: "<txid>-<id>".
func (c Cursor) String() string {
	return strconv.FormatUint(c.TxID, 10) + "-" + strconv.FormatInt(c.ID, 10)
}

// IsZero reports whether c is before every event.
func (c Cursor) IsZero() bool { return c == Cursor{} }

// Less orders cursors as the feed is.
func (c Cursor) Less(d Cursor) bool { return c.TxID < d.TxID || c.TxID == d.TxID && c.ID < d.ID }

// ErrBadCursor is a cursor this server could not have given out.
var ErrBadCursor = errors.New("not a feed cursor")

// ParseCursor reads a cursor given out by String.
func ParseCursor(s string) (Cursor, error) {
	t, i, ok := strings.Cut(s, "-")
	tx, err1 := strconv.ParseUint(t, 10, 64)
	id, err2 := strconv.ParseInt(i, 10, 64)
	if !ok || err1 != nil || err2 != nil || id < 0 || len(s) > 41 {
		return Cursor{}, fmt.Errorf("cursor %q: %w", clip(s, 50), ErrBadCursor)
	}
	return Cursor{TxID: tx, ID: id}, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// FeedEvent is one row of the feed. Data is the submission (or problem version) as it was
// when the change committed.
type FeedEvent struct {
	Cursor       Cursor
	At           time.Time
	Type         string
	Reason       string
	SubmissionID string
	ProblemID    string
	Data         json.RawMessage
}

// FeedFilter narrows the feed: event types (none: all), one problem, metadata the
// submission must carry (every key with that value), and the purpose its submission
// served: "" or PurposeUser keeps users' events (a verification's submissions stay out
// of the feed unless asked for), PurposeVerify a verification's only, PurposeAll both.
// A problem.version event counts as a user's.
type FeedFilter struct {
	Types     []string
	ProblemID string
	Metadata  map[string]string
	Purpose   string
	// Unseen, a snapshot (FeedBounds.Snapshot), keeps only the events of transactions
	// that had not ended in it: following from a head read in that snapshot, none of
	// them committed before that read. Empty keeps all.
	Unseen string
}

// FeedPage is one read of the feed: the events, and Next, the cursor to read on from.
// Next is the last event's when the page is full, else the head: the newest position
// every event up to which is final, so a filter that matched nothing still moves on.
type FeedPage struct {
	Events []FeedEvent
	Next   Cursor
}

// ReadFeed returns up to limit events after cursor after that match f, in feed order.
//
// Why no follower skips an event: a transaction's rows become visible when it commits,
// and a transaction that started earlier (a smaller txid) may commit later. The read is
// bounded by the head, the newest row whose txid is below the xmin of the read's own
// snapshot — every transaction with a smaller txid has ended, committed or not. Any row
// that commits afterwards belongs to a transaction still running at the read, whose txid
// is at least that xmin: it sorts after everything this read returned.
func ReadFeed(ctx context.Context, db DB, after Cursor, f FeedFilter, limit int) (FeedPage, error) {
	purpose := f.Purpose
	switch purpose {
	case "":
		purpose = PurposeUser
	case PurposeUser, PurposeVerify, PurposeAll:
	default:
		return FeedPage{}, fmt.Errorf("read feed: purpose %q: want %s, %s or %s", clip(purpose, 20), PurposeUser, PurposeVerify, PurposeAll)
	}
	var types []string
	if len(f.Types) > 0 {
		types = f.Types
	}
	var meta []byte
	if len(f.Metadata) > 0 {
		var err error
		if meta, err = json.Marshal(f.Metadata); err != nil {
			return FeedPage{}, fmt.Errorf("read feed: %w", err)
		}
	}
	var unseen *string
	if f.Unseen != "" {
		unseen = &f.Unseen
	}
	rows, err := db.Query(ctx, `
		WITH head AS (
		    SELECT txid, id FROM events WHERE txid < pg_snapshot_xmin(pg_current_snapshot())
		     ORDER BY txid DESC, id DESC LIMIT 1)
		SELECT h.txid::text, h.id, e.id, e.txid::text, e.at, e.type, e.reason, coalesce(e.submission_id::text, ''),
		       coalesce(e.problem_id, ''), e.data
		  FROM head h LEFT JOIN LATERAL (
		       SELECT * FROM events e
		        WHERE (e.txid, e.id) > ($1::text::xid8, $2::bigint) AND (e.txid, e.id) <= (h.txid, h.id)
		          AND ($3::text[] IS NULL OR e.type = ANY($3))
		          AND ($4::text = '' OR e.problem_id = $4)
		          AND ($5::jsonb IS NULL OR e.data->'metadata' @> $5)
		          AND ($7::text = 'all' OR e.purpose = $7)
		          AND ($8::text IS NULL OR NOT pg_visible_in_snapshot(e.txid, $8::text::pg_snapshot))
		        ORDER BY e.txid, e.id LIMIT $6) e ON true`,
		strconv.FormatUint(after.TxID, 10), after.ID, types, f.ProblemID, meta, limit, purpose, unseen)
	if err != nil {
		return FeedPage{}, fmt.Errorf("read feed: %w", err)
	}
	defer rows.Close()
	page := FeedPage{Next: after}
	var head Cursor
	for rows.Next() {
		var headTx, txid *string
		var headID, id *int64
		var e FeedEvent
		var at *time.Time
		var typ, reason, sid, pid *string
		var data []byte
		if err := rows.Scan(&headTx, &headID, &id, &txid, &at, &typ, &reason, &sid, &pid, &data); err != nil {
			return FeedPage{}, fmt.Errorf("read feed: %w", err)
		}
		if head, err = cursorOf(headTx, headID); err != nil {
			return FeedPage{}, fmt.Errorf("read feed: %w", err)
		}
		if id == nil {
			continue // no event after the cursor: the head alone
		}
		if e.Cursor, err = cursorOf(txid, id); err != nil {
			return FeedPage{}, fmt.Errorf("read feed: %w", err)
		}
		e.At, e.Type, e.Reason, e.SubmissionID, e.ProblemID, e.Data = *at, *typ, *reason, *sid, *pid, data
		page.Events = append(page.Events, e)
	}
	if err := rows.Err(); err != nil {
		return FeedPage{}, fmt.Errorf("read feed: %w", err)
	}
	switch {
	case len(page.Events) == limit:
		page.Next = page.Events[len(page.Events)-1].Cursor
	case after.Less(head):
		page.Next = head
	}
	return page, nil
}

func cursorOf(txid *string, id *int64) (Cursor, error) {
	if txid == nil || id == nil {
		return Cursor{}, nil
	}
	t, err := strconv.ParseUint(*txid, 10, 64)
	if err != nil {
		return Cursor{}, err
	}
	return Cursor{TxID: t, ID: *id}, nil
}

// FeedBounds are the cursors a follower may resume from: after Horizon (the newest
// event retention deleted; zero when none was) and at most Head (the newest final one).
// Snapshot is the PostgreSQL snapshot they were read in (pg_snapshot's text): the
// transactions it saw as ended are the ones that committed before the read.
type FeedBounds struct {
	Horizon  Cursor
	Head     Cursor
	Snapshot string
}

// ReadFeedBounds reads the feed's horizon and head, with the snapshot it read them in.
//
// The txids are ordered as xid8, numbers, and cast to text only once picked: ordering a
// column selected as txid::text by its name would order the text (PostgreSQL resolves a
// bare ORDER BY name to the output column first), where '999' sorts after '1000'.
func ReadFeedBounds(ctx context.Context, db DB) (FeedBounds, error) {
	var b FeedBounds
	var hTx, headTx *string
	var hID, headID *int64
	err := db.QueryRow(ctx, `SELECT h.txid::text, h.id, x.txid::text, x.id, pg_current_snapshot()::text
		  FROM (SELECT) one
		  LEFT JOIN events_horizon h ON true
		  LEFT JOIN LATERAL (
		       SELECT e.txid, e.id FROM events e WHERE e.txid < pg_snapshot_xmin(pg_current_snapshot())
		        ORDER BY e.txid DESC, e.id DESC LIMIT 1) x ON true`).
		Scan(&hTx, &hID, &headTx, &headID, &b.Snapshot)
	if err != nil {
		return b, fmt.Errorf("feed bounds: %w", err)
	}
	if b.Horizon, err = cursorOf(hTx, hID); err != nil {
		return b, fmt.Errorf("feed bounds: %w", err)
	}
	if b.Head, err = cursorOf(headTx, headID); err != nil {
		return b, fmt.Errorf("feed bounds: %w", err)
	}
	if b.Head.Less(b.Horizon) {
		b.Head = b.Horizon // every kept event is newer than the horizon
	}
	return b, nil
}

// PruneEvents deletes, oldest first in feed order, up to limit events older than
// retention, and moves the horizon past them. It stops at the first event in feed order
// that is still young, so that the horizon never passes an event that is kept. It
// returns how many it deleted. As in ReadFeedBounds, the newest deleted is picked by
// its xid8, before the cast to text.
func PruneEvents(ctx context.Context, db DB, retention time.Duration, limit int) (int, error) {
	var n int
	err := InTx(ctx, db, func(tx pgx.Tx) error {
		var lastTx *string
		var lastID *int64
		err := tx.QueryRow(ctx, `
			WITH batch AS (
			    SELECT e.txid, e.id, e.at < now() - $1 * interval '1 microsecond' AS old
			      FROM events e ORDER BY e.txid, e.id LIMIT $2),
			     firstyoung AS (SELECT b.txid, b.id FROM batch b WHERE NOT b.old ORDER BY b.txid, b.id LIMIT 1),
			     doomed AS (SELECT b.txid, b.id FROM batch b
			                 WHERE NOT EXISTS (SELECT 1 FROM firstyoung f WHERE (b.txid, b.id) >= (f.txid, f.id))),
			     gone AS (DELETE FROM events e USING doomed d WHERE e.id = d.id RETURNING e.txid, e.id)
			SELECT l.txid::text, l.id, (SELECT count(*) FROM gone)
			  FROM (SELECT) one
			  LEFT JOIN LATERAL (SELECT g.txid, g.id FROM gone g ORDER BY g.txid DESC, g.id DESC LIMIT 1) l ON true`, retention.Microseconds(), limit).Scan(&lastTx, &lastID, &n)
		if err != nil || lastTx == nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO events_horizon (txid, id) VALUES ($1::text::xid8, $2)
			ON CONFLICT (one) DO UPDATE SET txid = excluded.txid, id = excluded.id`, *lastTx, *lastID)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("prune events: %w", err)
	}
	return n, nil
}
