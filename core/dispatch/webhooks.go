package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"oj/core/clock"
	"oj/core/job"
	"oj/core/render"
	"oj/core/store"
)

// Webhooks, the fan-out: the dispatcher follows the results feed from one cursor kept
// in PostgreSQL. It takes a page of events under a lease on the cursor, tries each
// delivery the page makes (every event to every enabled endpoint that wants it) at once,
// and then, in one transaction, writes the page's deliveries in the state their tries
// left them and moves the cursor past the page. A delivery that succeeds at once is so
// written once, delivered; one that failed is written pending with its next try, and
// the senders (webhook_send.go) take it from there. A try still running after
// inlineWait is written in flight, leased to this dispatcher, and records itself when it
// ends; deliveries not tried by then, and those of an endpoint already failing, are
// written due at once for the senders.
//
// No transaction stays open while the page is sent: the cursor's lease (the fan-out
// lease) holds the page. A dispatcher that dies before the commit leaves the cursor
// where it was; once the lease ends another sends the page again under the same
// webhook-ids (store.DeliveryID): the receiver may see one twice, never none. The commit
// checks the lease is still its own, and the deliveries' unique key on endpoint and event
// keeps one delivery per event and endpoint. Replicas take turns on the lease.
//
// A delivery's body is the event rendered once, at fan-out, as a reader token sees it
// (core/render): what a site's backend may show its users — hidden tests' outputs and
// messages withheld, no checker message. The feed's cursor is the event's id in it, so a
// receiver can resume the feed from the last event it handled.

// fanoutGap is the least time between two fan-outs while events keep coming: they are
// taken in pages rather than one transaction per commit of the judging pipeline.
const fanoutGap = 10 * time.Millisecond

// inlineWait bounds how long a fan-out waits for its page's tries (at most
// webhooks.timeout) before it writes the page.
const inlineWait = time.Second

// fanoutLease is how long a fan-out holds the cursor from its read of a page to the
// commit that writes it: webhooks.lease, at most 15 s (a dispatcher that dies holds the
// fan-out up this long). It is at least twice the inline wait, as webhooks.lease is at
// least twice webhooks.timeout.
func (d *Dispatcher) fanoutLease() time.Duration { return min(d.cfg.Webhooks.Lease, 15*time.Second) }

func (d *Dispatcher) fanoutLoop(ctx context.Context) {
	defer func() {
		d.stragglers.Wait()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := store.ReleaseWebhookFanout(rctx, d.db, d.name); err != nil {
			d.log.Warn("release the webhook fan-out", "err", err)
		}
	}()
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
			// Nothing to fan out to (or another dispatcher is at it): the feed's commits
			// are not our business until the next poll.
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
// how many events it read and whether it holds the cursor with an endpoint enabled.
func (d *Dispatcher) FanOutOnce(ctx context.Context) (int, bool, error) {
	return d.fanOut(ctx, nil)
}

// fanOut is FanOutOnce; beforeCommit, for tests, runs before the commit and may fail it.
func (d *Dispatcher) fanOut(ctx context.Context, beforeCommit func() error) (int, bool, error) {
	// An idle install without endpoints leaves the cursor's row alone.
	if any, err := store.AnyWebhookEndpointEnabled(ctx, d.db); err != nil || !any {
		return 0, false, err
	}
	now := d.clock.Now()
	var read int
	var active bool
	var from, next store.Cursor
	var page []store.FannedDelivery
	var targets []*store.WebhookEndpoint
	err := store.InTx(ctx, d.db, func(tx pgx.Tx) error {
		read, active, page, targets = 0, false, nil, nil
		// The cursor first: an endpoint being created or enabled holds its row while it
		// takes its start (the feed's head then, at or past any page read before), so
		// the endpoints read next include every one whose start is before this page's end.
		cursor, ok, err := store.LeaseWebhookFanout(ctx, tx, d.name, now, d.fanoutLease())
		if err != nil || !ok {
			return err
		}
		endpoints, err := store.EnabledWebhookEndpoints(ctx, tx)
		if err != nil {
			return err
		}
		if len(endpoints) == 0 {
			return store.ReleaseWebhookFanout(ctx, tx, d.name)
		}
		active = true
		// Nothing before the oldest start is anybody's: skip it unread.
		from = endpoints[0].Start
		for _, ep := range endpoints[1:] {
			if ep.Start.Less(from) {
				from = ep.Start
			}
		}
		if from.Less(cursor) {
			from = cursor
		}
		p, err := store.ReadFeed(ctx, tx, from, store.FeedFilter{}, d.cfg.Webhooks.FanoutBatch)
		if err != nil {
			return err
		}
		read, from, next = len(p.Events), cursor, p.Next
		for _, e := range p.Events {
			// Metadata that does not decode is none: the event's render fails the same way
			// and it goes out as its stand-in to the endpoints that filter on nothing.
			meta, _ := eventMetadata(e)
			var body []byte
			for i := range endpoints {
				if !endpoints[i].Wants(e, meta) {
					continue
				}
				if body == nil {
					if body, err = d.webhookBody(ctx, tx, e); err != nil {
						return err
					}
				}
				page = append(page, store.FannedDelivery{ID: store.DeliveryID(endpoints[i].ID, e.Cursor.String()),
					NewWebhookDelivery: store.NewWebhookDelivery{EndpointID: endpoints[i].ID,
						EventID: e.Cursor.String(), EventType: e.Type, Payload: body}})
				targets = append(targets, &endpoints[i])
			}
		}
		if len(page) > 0 || next == cursor {
			return nil // the page is written, and the cursor moved, after its tries
		}
		// Events nobody wants: the cursor moves past them now.
		if err := store.SetWebhookFanout(ctx, tx, next); err != nil {
			return err
		}
		if beforeCommit != nil {
			return beforeCommit()
		}
		return nil
	})
	if err != nil {
		return 0, active, fmt.Errorf("webhook fan-out: %w", err)
	}
	if len(page) == 0 {
		return read, active, nil
	}
	tried := d.tryPage(ctx, page, targets, now)
	if beforeCommit != nil {
		if err := beforeCommit(); err != nil {
			tried.decide(nil)
			return 0, active, fmt.Errorf("webhook fan-out: %w", err)
		}
	}
	written, err := d.commitPage(ctx, from, next, page)
	tried.decide(written)
	if err != nil {
		return 0, active, fmt.Errorf("webhook fan-out: %w", err)
	}
	return read, active, nil
}

// commitPage writes a tried page (store.CommitWebhookFanout), a few times over if
// PostgreSQL fails, and counts and audits what it wrote. It returns the ids written.
func (d *Dispatcher) commitPage(ctx context.Context, from, next store.Cursor, page []store.FannedDelivery) ([]string, error) {
	cfg := d.cfg.Webhooks
	// The tries were made: their page is written even while the dispatcher stops.
	ctx = context.WithoutCancel(ctx)
	var written []string
	var disabled []store.DisabledEndpoint
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		written, disabled, err = store.CommitWebhookFanout(ctx, d.db, d.name, from, next, page, d.clock.Now(),
			cfg.Window(), cfg.Lease, d.fanoutLease())
		if err == nil || errors.Is(err, store.ErrFanoutLeaseLost) {
			break
		}
		clock.Sleep(ctx, job.Backoff(d.cfg.RetryBase, d.cfg.RetryMax, attempt))
	}
	if err != nil {
		return nil, err
	}
	for _, id := range written {
		if id != "" {
			d.metrics.WebhookFannedOut.Inc()
		}
	}
	for _, ep := range disabled {
		d.endpointDisabled(ctx, ep)
	}
	return written, nil
}

// triedPage is a page's tries: those that ended within the inline wait are in the
// page; those still running then learn from decide whether their delivery was written
// (they record their result) or not (the page is sent again later: they drop it).
type triedPage struct {
	decided chan struct{}
	written []string // set before decided is closed; nil: nothing written
}

func (p *triedPage) decide(written []string) {
	p.written = written
	close(p.decided)
}

// tryPage tries the page's deliveries, webhooks.concurrency at a time, those of
// endpoints not failing, and waits until they have ended or the inline wait is over.
// It fills in each delivery's Try: its result, an empty Outcome for one still running,
// nil for one not started (or of a failing endpoint).
func (d *Dispatcher) tryPage(ctx context.Context, page []store.FannedDelivery, targets []*store.WebhookEndpoint,
	now time.Time) *triedPage {
	tp := &triedPage{decided: make(chan struct{})}
	var todo []int
	for i, ep := range targets {
		if ep.FailingSince == nil {
			todo = append(todo, i)
		}
	}
	var (
		mu      sync.Mutex
		started int
		ended   int
		stopped bool // the inline wait is over: nothing more starts, and the page is taken as it is
		changed = make(chan struct{}, 1)
		window  = d.cfg.Webhooks.Window()
	)
	worker := func() {
		defer d.stragglers.Done()
		for {
			mu.Lock()
			if stopped || started == len(todo) {
				mu.Unlock()
				return
			}
			i := todo[started]
			started++
			page[i].Try, page[i].TriedAt = &store.WebhookTry{ID: page[i].ID, EndpointID: page[i].EndpointID, Attempt: 1},
				d.clock.Now()
			mu.Unlock()
			ep := targets[i]
			c := store.ClaimedDelivery{URL: ep.URL, Secrets: ep.Signing(now), WebhookDelivery: store.WebhookDelivery{
				ID: page[i].ID, EndpointID: ep.ID, Attempts: 1, ExpiresAt: now.Add(window)}}
			c.Payload = page[i].Payload
			t, ok := d.tryDelivery(ctx, c)
			mu.Lock()
			late := stopped
			if !late && ok {
				*page[i].Try = t
			}
			ended++
			mu.Unlock()
			wake(changed)
			if late && ok {
				// Written in flight (if its page was written): record it as the senders do.
				<-tp.decided
				if len(tp.written) > i && tp.written[i] != "" {
					d.record(ctx, []webhookTry{{try: t, url: ep.URL}})
				}
			}
		}
	}
	workers := min(d.cfg.Webhooks.Concurrency, len(todo))
	d.stragglers.Add(workers)
	for range workers {
		go worker()
	}
	timeout := time.NewTimer(min(inlineWait, d.cfg.Webhooks.Timeout))
	defer timeout.Stop()
	for {
		mu.Lock()
		done := ended == len(todo)
		mu.Unlock()
		if done {
			break
		}
		select {
		case <-changed:
			continue
		case <-timeout.C:
		case <-ctx.Done():
		}
		break
	}
	mu.Lock()
	stopped = true // a try still running is in flight: leased from its start (TriedAt)
	mu.Unlock()
	return tp
}

// webhookBody is event e as a reader token sees it, encoded. An event that cannot be
// rendered or encoded is sent as its stand-in (render.Unrenderable), logged and counted,
// so that the rest of its page is delivered; any other error is the store's.
func (d *Dispatcher) webhookBody(ctx context.Context, tx pgx.Tx, e store.FeedEvent) ([]byte, error) {
	_, body, err := render.EncodeFeedEvent(ctx, &d.views, tx, false, e)
	if errors.Is(err, render.ErrUnrenderable) {
		d.metrics.WebhookUnrenderable.Inc()
		d.log.Warn("webhook event sent as its stand-in", "submission_id", e.SubmissionID, "event_id", e.Cursor.String(), "err", err)
		return body, nil
	}
	return body, err
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
