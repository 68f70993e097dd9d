package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"oj/core/api/apitest"
	"oj/core/api/client"
	"oj/core/dispatch"
	"oj/core/job"
	"oj/core/store"
	"oj/core/testenv"
	"oj/core/wire"
)

// The feed on a database of any age: its cursors are transaction ids, which pass 999 a
// few dozen submissions after a fresh start, 99,999 in a day of service and, past 2^32,
// carry an epoch. Each phase writes events whose transaction ids straddle a power of ten
// (where the ids' text order and their numeric order part), then reads the feed from the
// start and resumes it from every cursor it handed out, follows it from since=now, and
// prunes it across the boundary. The stack is the test's own: pg_resetwal moves it
// forward between the phases.
func TestFeedOnAnAgedDatabase(t *testing.T) {
	st := testenv.NewStack(t)
	for _, boundary := range []uint64{1_000, 100_000, 10_000_000_000} {
		t.Run(strconv.FormatUint(boundary, 10), func(t *testing.T) {
			// Far enough below the boundary that setting up the environment stays below it.
			if boundary > 5_000 && st.NextXID() < boundary-5_000 {
				st.AgeTo(boundary - 5_000)
			}
			// The dispatcher's loops write (leases, relays): slowed down, they spend fewer of
			// the ids below 1000 a fresh cluster has left.
			e := apitest.New(t, apitest.Options{PostgresURL: st.PostgresURL, NoWorker: true,
				Dispatcher: func(c *dispatch.Config) { c.PollInterval = time.Second }})
			checkAgedFeed(t, e, boundary)
		})
	}
}

func checkAgedFeed(t *testing.T, e *apitest.Env, boundary uint64) {
	ctx := context.Background()
	var before string
	if err := e.DB.QueryRow(ctx, `SELECT pg_snapshot_xmax(pg_current_snapshot())::text`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	t.Logf("set up at xid %s; spending ids up to %d", before, boundary-8)
	burnXIDs(t, e.DB, boundary-8)
	// Submissions (a submission.queued event each, each in its own transaction) until
	// five have transaction ids at or past the boundary.
	var mine []store.Cursor
	for past := 0; past < 5; {
		if len(mine) > 200 {
			t.Fatalf("200 submissions did not pass xid %d: %v", boundary, mine)
		}
		id, err := store.Submit(ctx, e.DB, store.NewSubmission{ProblemID: "aplusb", ProblemVersion: 1,
			Language: "python3", Lane: job.LaneLight, Source: "print(1)", TraceID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		var c string
		if err := e.DB.QueryRow(ctx, `SELECT txid::text || '-' || id FROM events WHERE submission_id = $1`, id).Scan(&c); err != nil {
			t.Fatal(err)
		}
		cur, err := store.ParseCursor(c)
		if err != nil {
			t.Fatal(err)
		}
		mine = append(mine, cur)
		if cur.TxID >= boundary {
			past++
		}
	}
	if mine[0].TxID >= boundary {
		t.Fatalf("no event below xid %d: %v (setting up took too many transactions)", boundary, mine)
	}
	last := mine[len(mine)-1].String()

	// From the start: every event, in numeric (txid, id) order, as PostgreSQL orders them.
	var all []string
	deadline := time.Now().Add(20 * time.Second)
	for !slices.Contains(all, last) {
		if time.Now().After(deadline) {
			t.Fatalf("the feed from the start never reached %s: %v", last, all)
		}
		all = feedIDs(t, e.Admin, "")
	}
	var ordered []string
	if err := e.DB.QueryRow(ctx, `SELECT array_agg(txid::text || '-' || id ORDER BY txid, id) FROM events
		WHERE purpose = 'user'`).Scan(&ordered); err != nil {
		t.Fatal(err)
	}
	if !isPrefix(all, ordered) {
		t.Fatalf("the feed from the start:\n%v\nthe events in (txid, id) order:\n%v", all, ordered)
	}
	for i := 1; i < len(all); i++ {
		if !cursorOf(t, all[i-1]).Less(cursorOf(t, all[i])) {
			t.Fatalf("cursor %s comes after %s", all[i], all[i-1])
		}
	}
	for _, c := range mine {
		if !slices.Contains(all, c.String()) {
			t.Fatalf("event %s missing from the feed %v", c, all)
		}
	}

	// Resumed from every cursor it handed out: exactly the events after it.
	for i, c := range all {
		if got := feedIDs(t, e.Admin, c); !isPrefix(all[i+1:], got) {
			t.Fatalf("resumed after %s: %v, want %v first", c, got, all[i+1:])
		}
	}
	// A cursor past the head is not one this feed gave out.
	head := cursorOf(t, all[len(all)-1])
	beyond := store.Cursor{TxID: head.TxID + 1_000_000, ID: 1}
	if _, err := e.Admin.Feed(ctx, client.FeedQuery{Since: beyond.String()}, func(wire.Event) error { return nil }); client.StatusOf(err) != http.StatusGone {
		t.Fatalf("since=%s (past the head %s): %v, want 410", beyond, head, err)
	}

	checkSinceNow(t, e, all)

	// Retention deletes the events up to the first past the boundary: the horizon is
	// that event, numerically the newest deleted.
	firstPast := slices.IndexFunc(all, func(c string) bool { return cursorOf(t, c).TxID >= boundary })
	gone := cursorOf(t, all[firstPast])
	if _, err := e.DB.Exec(ctx, `UPDATE events SET at = now() - interval '8 days' WHERE (txid, id) <= ($1::text::xid8, $2)`,
		strconv.FormatUint(gone.TxID, 10), gone.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := store.PruneEvents(ctx, e.DB, 7*24*time.Hour, 1000); err != nil {
		t.Fatal(err)
	}
	b, err := store.ReadFeedBounds(ctx, e.DB)
	if err != nil {
		t.Fatal(err)
	}
	if b.Horizon != gone {
		t.Fatalf("horizon after pruning up to %s: %s", gone, b.Horizon)
	}
	if got := feedIDs(t, e.Admin, ""); !isPrefix(all[firstPast+1:], got) {
		t.Fatalf("from the start after pruning: %v, want %v first", got, all[firstPast+1:])
	}
	if got := feedIDs(t, e.Admin, all[firstPast]); !isPrefix(all[firstPast+1:], got) {
		t.Fatalf("from the horizon: %v, want %v first", got, all[firstPast+1:])
	}
	_, err = e.Admin.Feed(ctx, client.FeedQuery{Since: all[firstPast-1]}, func(wire.Event) error { return nil })
	if client.StatusOf(err) != http.StatusGone {
		t.Fatalf("since=%s (pruned): %v, want 410", all[firstPast-1], err)
	}
}

// checkSinceNow follows the feed from since=now: it starts at the head (after every
// event of all) and its first event is one committed after the call.
func checkSinceNow(t *testing.T, e *apitest.Env, all []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n := 0
	if _, err := e.Admin.Feed(ctx, client.FeedQuery{Since: "now"}, func(wire.Event) error { n++; return nil }); err != nil || n != 0 {
		t.Fatalf("since=now without follow: %d events, %v", n, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.HTTP.URL+"/api/v1/events?since=now", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.AdminToken)
	req.Header.Set("Accept", "application/x-ndjson")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("since=now: %s", resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	next := func() wire.Event {
		t.Helper()
		if !sc.Scan() {
			t.Fatalf("since=now: the stream ended: %v", sc.Err())
		}
		var ev wire.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("since=now: line %q: %v", sc.Text(), err)
		}
		return ev
	}
	// The stream opens with the cursor it starts from: a follower that drops before
	// its first event resumes from there.
	start := next()
	if start.Type != "heartbeat" || cursorOf(t, start.ID).Less(cursorOf(t, all[len(all)-1])) {
		t.Fatalf("since=now opened with %+v, want a heartbeat at or past %s", start, all[len(all)-1])
	}
	id, err := store.Submit(ctx, e.DB, store.NewSubmission{ProblemID: "aplusb", ProblemVersion: 1,
		Language: "python3", Lane: job.LaneLight, Source: "print(2)", TraceID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for {
		ev := next()
		if ev.Type == "heartbeat" {
			continue
		}
		if slices.Contains(all, ev.ID) || !cursorOf(t, start.ID).Less(cursorOf(t, ev.ID)) {
			t.Fatalf("since=now: event %s %s, committed before the call (the head was %s)", ev.ID, ev.Type, start.ID)
		}
		var s wire.Submission
		if err := json.Unmarshal(ev.Data, &s); err != nil {
			t.Fatal(err)
		}
		if s.ID == id && ev.Type == wire.EventQueued {
			return
		}
	}
}

// burnXIDs spends transaction ids, each a transaction of its own, until the next one is
// at least next.
func burnXIDs(t *testing.T, db *pgxpool.Pool, next uint64) {
	t.Helper()
	for {
		var s string
		if err := db.QueryRow(context.Background(), `SELECT pg_current_xact_id()::text`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		x, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if x+1 >= next {
			return
		}
	}
}

// feedIDs reads the feed from since to its head and returns the events' ids.
func feedIDs(t *testing.T, c *client.Client, since string) []string {
	t.Helper()
	var ids []string
	if _, err := c.Feed(context.Background(), client.FeedQuery{Since: since}, func(ev wire.Event) error {
		ids = append(ids, ev.ID)
		return nil
	}); err != nil {
		t.Fatalf("feed since %q: %v", since, err)
	}
	return ids
}

func cursorOf(t *testing.T, s string) store.Cursor {
	t.Helper()
	c, err := store.ParseCursor(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// isPrefix reports whether want starts got: events newer than what the test wrote may
// follow.
func isPrefix(want, got []string) bool {
	return len(got) >= len(want) && slices.Equal(want, got[:len(want)])
}
