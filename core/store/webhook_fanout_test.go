package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"oj/core/store"
	"oj/core/testenv"
)

// The fan-out's lease on its cursor: one holder at a time; after the holder's lease ends
// another takes the page over, and the first one's commit writes nothing; the one that
// holds it writes each delivery once, in the state its try left it, and moves the cursor.
func TestFanoutLeaseFencesTheCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.DB(t)
	now := time.Now()
	ep, err := store.CreateWebhookEndpoint(ctx, db, store.NewWebhookEndpoint{URL: "http://127.0.0.1:9/x",
		Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	lease := func(owner string, at time.Time) (store.Cursor, bool) {
		t.Helper()
		var c store.Cursor
		var ok bool
		if err := store.InTx(ctx, db, func(tx pgx.Tx) error {
			var err error
			c, ok, err = store.LeaseWebhookFanout(ctx, tx, owner, at, 10*time.Second)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return c, ok
	}
	from, ok := lease("a", now)
	if !ok {
		t.Fatal("a free cursor was not leased")
	}
	if _, ok := lease("b", now.Add(5*time.Second)); ok {
		t.Fatal("b leased the cursor during a's lease")
	}
	if _, ok := lease("b", now.Add(11*time.Second)); !ok {
		t.Fatal("b did not take the cursor over after a's lease ended")
	}
	next := store.Cursor{TxID: from.TxID + 1, ID: from.ID + 1}
	status := 204
	page := []store.FannedDelivery{
		{ID: store.DeliveryID(ep.ID, "1-1"), NewWebhookDelivery: store.NewWebhookDelivery{EndpointID: ep.ID,
			EventID: "1-1", EventType: "submission.queued", Payload: []byte(`{"id":"1-1"}`)},
			Try: &store.WebhookTry{Outcome: store.TryDelivered, Status: status, Attempt: 1}},
		{ID: store.DeliveryID(ep.ID, "1-2"), NewWebhookDelivery: store.NewWebhookDelivery{EndpointID: ep.ID,
			EventID: "1-2", EventType: "submission.queued", Payload: []byte(`{"id":"1-2"}`)},
			Try: &store.WebhookTry{Outcome: store.TryRetry, Status: 500, Error: "HTTP 500", NextTry: now.Add(time.Minute),
				Attempt: 1}},
		{ID: store.DeliveryID(ep.ID, "1-3"), NewWebhookDelivery: store.NewWebhookDelivery{EndpointID: ep.ID,
			EventID: "1-3", EventType: "submission.queued", Payload: []byte(`{"id":"1-3"}`)},
			Try: &store.WebhookTry{Attempt: 1}, TriedAt: now},
		{ID: store.DeliveryID(ep.ID, "1-4"), NewWebhookDelivery: store.NewWebhookDelivery{EndpointID: ep.ID,
			EventID: "1-4", EventType: "submission.queued", Payload: []byte(`{"id":"1-4"}`)}},
	}
	if _, _, err := store.CommitWebhookFanout(ctx, db, "a", from, next, page, now, time.Hour, time.Minute,
		10*time.Second); !errors.Is(err, store.ErrFanoutLeaseLost) {
		t.Fatalf("a's commit after b took over: %v, want ErrFanoutLeaseLost", err)
	}
	var n int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1`, ep.ID).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d deliveries (%v) after a lost commit, want 0", n, err)
	}
	written, _, err := store.CommitWebhookFanout(ctx, db, "b", from, next, page, now, time.Hour, time.Minute, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range written {
		if id != page[i].ID {
			t.Fatalf("written %v, want every id of the page", written)
		}
	}
	// Written again (a page sent twice): nothing more.
	if _, ok := lease("b", now); !ok {
		t.Fatal("b lost its own lease")
	}
	var c store.Cursor
	var tx string
	if err := db.QueryRow(ctx, `SELECT txid::text, id FROM webhook_fanout`).Scan(&tx, &c.ID); err != nil {
		t.Fatal(err)
	}
	if c.ID != next.ID {
		t.Fatalf("the cursor is at id %d, want %d", c.ID, next.ID)
	}
	type row struct {
		status, owner string
		attempts      int
	}
	want := map[string]row{"1-1": {"delivered", "", 1}, "1-2": {"pending", "", 1}, "1-3": {"pending", "b", 1},
		"1-4": {"pending", "", 0}}
	rows, err := db.Query(ctx, `SELECT event_id, status, lease_owner, attempts FROM webhook_deliveries WHERE endpoint_id = $1`, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]row{}
	for rows.Next() {
		var ev string
		var r row
		if err := rows.Scan(&ev, &r.status, &r.owner, &r.attempts); err != nil {
			t.Fatal(err)
		}
		got[ev] = r
	}
	if rows.Err() != nil || len(got) != len(want) {
		t.Fatalf("deliveries %v (%v), want %v", got, rows.Err(), want)
	}
	for ev, w := range want {
		if got[ev] != w {
			t.Errorf("delivery of %s: %+v, want %+v", ev, got[ev], w)
		}
	}
	// The failed try marked its endpoint failing.
	var failing *time.Time
	if err := db.QueryRow(ctx, `SELECT failing_since FROM webhook_endpoints WHERE id = $1`, ep.ID).Scan(&failing); err != nil || failing == nil {
		t.Fatalf("failing_since %v (%v) after a failed try, want set", failing, err)
	}
}
