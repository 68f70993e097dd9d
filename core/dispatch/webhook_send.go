package dispatch

import (
	"context"
	"sync"
	"time"

	"oj/core/clock"
	"oj/core/job"
	"oj/core/ops"
	"oj/core/store"
	"oj/core/webhook"
)

// Webhooks, the sending of what the fan-out's own try (webhooks.go) did not deliver:
// due deliveries are claimed like the outbox (FOR UPDATE SKIP LOCKED), each under a
// lease until now + webhooks.lease, and tried webhooks.concurrency at a time. A try's
// result is recorded with a fenced update (the claim's attempt and this dispatcher's
// name), in batches. A dispatcher stopped or killed mid-try records
// nothing for it: the delivery is due again when its lease ends, and the receiver may
// see its webhook-id twice — never none.
//
// Shares: each endpoint holds at most webhooks.concurrency_per_endpoint tries in flight,
// and due deliveries are claimed round-robin across endpoints (store), so a receiver that
// is slow, failing or never answers ties up at most its share of the senders and every
// other endpoint's retries go on meanwhile.
//
// Order: an endpoint's deliveries are claimed oldest due first and tried concurrently, so
// one endpoint's events may arrive out of feed order (and a retried one after later ones).
// Each body carries its event's id (the feed cursor) and the submission's state and
// attempt, which order them.

// webhookTry is one finished try, to record.
type webhookTry struct {
	try store.WebhookTry
	url string
}

func (d *Dispatcher) sendLoop(ctx context.Context) {
	cfg := d.cfg.Webhooks
	results := make(chan webhookTry, cfg.Concurrency)
	recorded := make(chan struct{})
	go func() { defer close(recorded); d.recordLoop(ctx, results) }()
	var wg sync.WaitGroup
	var mu sync.Mutex
	inflight := 0
	freed := make(chan struct{}, 1)
	failures := 0
	for ctx.Err() == nil {
		mu.Lock()
		free := cfg.Concurrency - inflight
		mu.Unlock()
		if free == 0 {
			select {
			case <-ctx.Done():
			case <-freed:
			}
			continue
		}
		claimed, err := claimWebhooks(ctx, d, free)
		if err != nil {
			if ctx.Err() == nil {
				failures++
				d.log.Warn("claim webhook deliveries", "err", err)
				clock.Sleep(ctx, job.Backoff(d.cfg.RetryBase, d.cfg.RetryMax, failures))
			}
			continue
		}
		failures = 0
		for _, c := range claimed {
			mu.Lock()
			inflight++
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				t, ok := d.tryDelivery(ctx, c)
				mu.Lock()
				inflight--
				mu.Unlock()
				select {
				case freed <- struct{}{}:
				default:
				}
				if ok {
					results <- webhookTry{try: t, url: c.URL}
				}
			}()
		}
		if len(claimed) == free {
			continue // every slot taken: the next claim waits for one
		}
		select {
		case <-ctx.Done():
		case <-d.sendWake:
		case <-time.After(cfg.PollInterval):
		}
	}
	wg.Wait()
	close(results)
	<-recorded
}

func claimWebhooks(ctx context.Context, d *Dispatcher, limit int) ([]store.ClaimedDelivery, error) {
	return store.ClaimWebhookDeliveries(ctx, d.db, d.name, d.clock.Now(), d.cfg.Webhooks.Lease, limit,
		d.cfg.Webhooks.ConcurrencyPerEndpoint)
}

// tryDelivery makes one try of c and decides what becomes of the delivery. ok is false
// when the dispatcher is stopping: the try was cut short and is not recorded.
func (d *Dispatcher) tryDelivery(ctx context.Context, c store.ClaimedDelivery) (store.WebhookTry, bool) {
	start := time.Now()
	r := d.sender.Send(ctx, webhook.Message{ID: c.ID, URL: c.URL, Secrets: c.Secrets, Body: c.Payload}, d.clock.Now())
	if ctx.Err() != nil {
		return store.WebhookTry{}, false
	}
	d.metrics.WebhookTrySeconds.Observe(time.Since(start).Seconds())
	t := store.WebhookTry{ID: c.ID, EndpointID: c.EndpointID, Attempt: c.Attempts, Status: r.Status, Error: r.Error}
	switch r.Outcome {
	case webhook.Delivered:
		t.Outcome = store.TryDelivered
	case webhook.Gone:
		t.Outcome = store.TryGone
	default:
		if next, ok := d.cfg.Webhooks.NextTry(c.Attempts, r, d.clock.Now(), c.ExpiresAt); ok {
			t.Outcome, t.NextTry = store.TryRetry, next
		} else {
			t.Outcome = store.TryFailed
		}
	}
	d.metrics.WebhookDeliveries.WithLabelValues(t.Outcome).Inc()
	if t.Outcome != store.TryDelivered {
		d.log.Info("webhook try failed", "delivery", c.ID, "endpoint", c.EndpointID, "attempt", c.Attempts,
			"outcome", t.Outcome, "status", r.Status, "err", r.Error)
	}
	return t, true
}

// recordBatch bounds how many tries one transaction records.
const recordBatch = 256

// recordLoop records finished tries in batches: whatever has finished while the last
// batch was written. A batch that cannot be recorded (PostgreSQL down) is dropped after a
// few tries: its deliveries' leases end and they are tried again.
func (d *Dispatcher) recordLoop(ctx context.Context, results <-chan webhookTry) {
	for first := range results {
		batch := []webhookTry{first}
	more:
		for len(batch) < recordBatch {
			select {
			case t, ok := <-results:
				if !ok {
					break more
				}
				batch = append(batch, t)
			default:
				break more
			}
		}
		d.record(ctx, batch)
	}
}

func (d *Dispatcher) record(ctx context.Context, batch []webhookTry) {
	tries := make([]store.WebhookTry, len(batch))
	for i, b := range batch {
		tries[i] = b.try
	}
	// Tries that finished before a stop are still recorded.
	ctx = context.WithoutCancel(ctx)
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		var disabled []store.DisabledEndpoint
		_, disabled, err = store.FinishWebhookTries(ctx, d.db, d.name, d.clock.Now(), d.cfg.Webhooks.Window(), tries)
		if err == nil {
			for _, ep := range disabled {
				d.endpointDisabled(ctx, ep)
			}
			return
		}
		clock.Sleep(ctx, job.Backoff(d.cfg.RetryBase, d.cfg.RetryMax, attempt))
	}
	d.log.Warn("record webhook tries: their deliveries will be tried again when their leases end",
		"tries", len(tries), "err", err)
}

// webhookActor is the audit log's actor of what the dispatcher decides by itself.
const webhookActor = "dispatcher"

// endpointDisabled audits and counts an endpoint the dispatcher disabled.
func (d *Dispatcher) endpointDisabled(ctx context.Context, ep store.DisabledEndpoint) {
	why := "failing"
	if ep.Reason == store.ReasonGone {
		why = "gone"
	}
	d.metrics.WebhookEndpointsDisabled.WithLabelValues(why).Inc()
	d.log.Warn("webhook endpoint disabled", "endpoint", ep.ID, "url", ep.URL, "reason", ep.Reason)
	d.ops.Record(ctx, ops.Request{Actor: webhookActor}, ops.ActionWebhookDisable,
		ops.WebhookParams{ID: ep.ID, URL: ep.URL}, ops.WebhookDisableCounts{Disabled: 1, Reason: ep.Reason}, nil)
}
