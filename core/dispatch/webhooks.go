package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"oj/core/clock"
	"oj/core/render"
	"oj/core/store"
)

// Webhooks, the fan-out: the dispatcher follows the results feed from one cursor kept
// in PostgreSQL, and in one transaction writes a delivery for every event and every
// enabled endpoint that wants it, and moves the cursor past those events. A dispatcher
// that dies before the commit leaves the cursor where it was (the next fan-out writes
// the same deliveries); after it, never again: no event is lost or fanned out twice to
// one endpoint (the deliveries' unique key on endpoint and event holds it too). Replicas
// take turns: the cursor's row is locked with SKIP LOCKED.
//
// A delivery's body is the event rendered once, at fan-out, as a reader token sees it
// (core/render): what a site's backend may show its users — hidden tests' outputs and
// messages withheld, no checker message. The feed's cursor is the event's id in it, so a
// receiver can resume the feed from the last event it handled.

// fanoutGap is the least time between two fan-outs while events keep coming: they are
// taken in pages rather than one transaction per commit of the judging pipeline.
const fanoutGap = 10 * time.Millisecond

func (d *Dispatcher) fanoutLoop(ctx context.Context) {
	for ctx.Err() == nil {
		n, endpoints, err := d.FanOutOnce(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			d.log.Warn("webhook fan-out", "err", err)
			clock.Sleep(ctx, d.cfg.Webhooks.PollInterval)
			continue
		case n == d.cfg.Webhooks.FanoutBatch:
			continue // a full page: more are waiting
		}
		if !endpoints {
			// Nothing to fan out to: the feed's commits are not our business until an
			// endpoint is enabled, which the next poll sees.
			clock.Sleep(ctx, d.cfg.Webhooks.PollInterval)
			continue
		}
		clock.Sleep(ctx, fanoutGap)
		select {
		case <-ctx.Done():
		case <-d.feedWake:
		case <-time.After(d.cfg.Webhooks.PollInterval):
		}
	}
}

// FanOutOnce fans out one page of the feed (webhooks.fanout_batch events). It returns
// how many events it read and whether any endpoint is enabled.
func (d *Dispatcher) FanOutOnce(ctx context.Context) (int, bool, error) {
	return d.fanOut(ctx, nil)
}

// fanOut is FanOutOnce; beforeCommit, for tests, runs before the commit and may fail it.
func (d *Dispatcher) fanOut(ctx context.Context, beforeCommit func() error) (int, bool, error) {
	var read int
	var active bool
	var written []string
	err := store.InTx(ctx, d.db, func(tx pgx.Tx) error {
		read, active, written = 0, false, nil
		// The cursor first: an endpoint being created or enabled holds it while it takes
		// its start, so the endpoints read next include every one whose start is at or
		// after the cursor.
		cursor, ok, err := store.LockWebhookFanout(ctx, tx)
		if err != nil || !ok {
			active = ok
			return err
		}
		endpoints, err := store.EnabledWebhookEndpoints(ctx, tx)
		if err != nil || len(endpoints) == 0 {
			return err
		}
		active = true
		// Nothing before the oldest start is anybody's: skip it unread.
		from := endpoints[0].Start
		for _, ep := range endpoints[1:] {
			if ep.Start.Less(from) {
				from = ep.Start
			}
		}
		if from.Less(cursor) {
			from = cursor
		}
		page, err := store.ReadFeed(ctx, tx, from, store.FeedFilter{}, d.cfg.Webhooks.FanoutBatch)
		if err != nil {
			return err
		}
		read = len(page.Events)
		var deliveries []store.NewWebhookDelivery
		for _, e := range page.Events {
			meta, err := eventMetadata(e)
			if err != nil {
				return err
			}
			var body []byte
			for i := range endpoints {
				if !endpoints[i].Wants(e, meta) {
					continue
				}
				if body == nil {
					ev, err := render.FeedEvent(ctx, &d.views, tx, false, e)
					if err != nil {
						return err
					}
					if body, err = json.Marshal(ev); err != nil {
						return err
					}
				}
				deliveries = append(deliveries, store.NewWebhookDelivery{EndpointID: endpoints[i].ID,
					EventID: e.Cursor.String(), EventType: e.Type, Payload: body})
			}
		}
		if written, err = store.InsertWebhookDeliveries(ctx, tx, deliveries, d.clock.Now(), d.cfg.Webhooks.Window()); err != nil {
			return err
		}
		if page.Next != cursor {
			if err := store.SetWebhookFanout(ctx, tx, page.Next); err != nil {
				return err
			}
		}
		if beforeCommit != nil {
			return beforeCommit()
		}
		return nil
	})
	if err != nil {
		return 0, active, fmt.Errorf("webhook fan-out: %w", err)
	}
	for _, id := range written {
		if id != "" {
			d.metrics.WebhookFannedOut.Inc()
		}
	}
	return read, active, nil
}

// eventMetadata is the metadata of an event's submission (nil for a problem version).
func eventMetadata(e store.FeedEvent) (map[string]string, error) {
	if e.SubmissionID == "" {
		return nil, nil
	}
	var s struct {
		Metadata map[string]string `json:"metadata"`
	}
	if err := json.Unmarshal(e.Data, &s); err != nil {
		return nil, fmt.Errorf("event %s: %w", e.Cursor, err)
	}
	return s.Metadata, nil
}
