package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"oj/core/clock"
	"oj/core/job"
	"oj/core/render"
	"oj/core/store"
	"oj/core/webhook"
)

// Run callbacks: a run made with a callback URL (the Judge0 face's callback_url) has its
// result PUT there when it ends. The row is written with the run's end (a trigger,
// 00015_run_callbacks.sql); the senders here claim due rows under a lease, as the
// webhook senders claim deliveries, render the body at the first try (Config.
// RunCallbackBody, the face's renderer) and keep it for the next ones, and record each
// try with a fenced update. Tries follow the webhooks' schedule over its whole window
// (webhooks.schedule), only a 2xx delivers (a 410 gives up at once: there is no
// endpoint to disable), the guard refuses private addresses unless
// webhooks.allow_private, and webhooks.callback_secret signs them (Standard Webhooks
// headers; unsigned when it is empty). A dispatcher killed mid-try leaves its row to be
// tried again when the lease ends: the receiver may see one webhook-id twice, never
// none.

// callbackLoop claims and tries due callbacks, webhooks.concurrency at a time, until
// ctx ends.
func (d *Dispatcher) callbackLoop(ctx context.Context) {
	failures := 0
	for ctx.Err() == nil {
		n, err := d.SendRunCallbacksOnce(ctx)
		if err != nil {
			if ctx.Err() == nil {
				failures++
				d.log.Warn("run callbacks", "err", err)
				clock.Sleep(ctx, job.Backoff(d.cfg.RetryBase, d.cfg.RetryMax, failures))
			}
			continue
		}
		failures = 0
		if n == d.cfg.Webhooks.Concurrency {
			continue // a full claim: more may be due
		}
		select {
		case <-ctx.Done():
		case <-d.callbackWake:
		case <-time.After(d.cfg.Webhooks.PollInterval):
		}
	}
}

// SendRunCallbacksOnce claims the due callbacks (at most webhooks.concurrency), tries
// them at once and records their tries. It returns how many it claimed.
func (d *Dispatcher) SendRunCallbacksOnce(ctx context.Context) (int, error) {
	cfg := d.cfg.Webhooks
	claimed, err := store.ClaimRunCallbacks(ctx, d.db, d.name, d.clock.Now(), cfg.Lease, cfg.Window(), cfg.Concurrency)
	if err != nil || len(claimed) == 0 {
		return 0, err
	}
	tries := make([]store.RunCallbackTry, len(claimed))
	ok := make([]bool, len(claimed))
	var wg sync.WaitGroup
	for i := range claimed {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tries[i], ok[i] = d.tryCallback(ctx, claimed[i])
		}()
	}
	wg.Wait()
	var done []store.RunCallbackTry
	for i := range tries {
		if ok[i] {
			done = append(done, tries[i])
		}
	}
	if len(done) == 0 {
		return len(claimed), nil
	}
	// Tries that were made are recorded even while the dispatcher stops.
	rctx := context.WithoutCancel(ctx)
	for attempt := 1; ; attempt++ {
		_, err = store.FinishRunCallbacks(rctx, d.db, d.name, d.clock.Now(), done)
		if err == nil || attempt == 3 {
			break
		}
		clock.Sleep(rctx, job.Backoff(d.cfg.RetryBase, d.cfg.RetryMax, attempt))
	}
	if err != nil {
		return len(claimed), fmt.Errorf("record run callbacks (tried again when their leases end): %w", err)
	}
	return len(claimed), nil
}

// tryCallback makes one try of c, rendering its body first if no try has. ok is false
// when the dispatcher is stopping (the try is not recorded) or the body could not be
// rendered for a reason that may pass (the run could not be read).
func (d *Dispatcher) tryCallback(ctx context.Context, c store.RunCallback) (store.RunCallbackTry, bool) {
	t := store.RunCallbackTry{ID: c.ID, Attempt: c.Attempts}
	if c.Payload == nil {
		contentType, body, err := d.renderCallback(ctx, c.SubmissionID)
		switch {
		case errors.Is(err, store.ErrNotFound) || errors.Is(err, errUnrenderable):
			// Nothing will ever render it: given up, and said.
			t.Outcome, t.Error = store.TryFailed, "no body: "+err.Error()
			d.metrics.RunCallbackTries.WithLabelValues(t.Outcome).Inc()
			d.log.Warn("run callback given up", "callback", c.ID, "submission_id", c.SubmissionID, "err", err)
			return t, true
		case err != nil:
			if ctx.Err() == nil {
				d.log.Warn("run callback: read the run", "submission_id", c.SubmissionID, "err", err)
			}
			return t, false // its lease ends, and it is claimed again
		}
		c.ContentType, c.Payload = contentType, body
		t.ContentType, t.Payload = contentType, body
	}
	var secrets []string
	if s := d.cfg.Webhooks.CallbackSecret; s != "" {
		secrets = []string{s}
	}
	start := time.Now()
	r := d.sender.Send(ctx, webhook.Message{ID: c.ID, URL: c.URL, Secrets: secrets, Body: c.Payload,
		Method: http.MethodPut, ContentType: c.ContentType}, d.clock.Now())
	if ctx.Err() != nil {
		return store.RunCallbackTry{}, false
	}
	d.metrics.WebhookTrySeconds.Observe(time.Since(start).Seconds())
	t.Status, t.Error = r.Status, r.Error
	expires := d.clock.Now()
	if c.ExpiresAt != nil {
		expires = *c.ExpiresAt
	}
	switch {
	case r.Outcome == webhook.Delivered:
		t.Outcome = store.TryDelivered
	case r.Outcome == webhook.Gone:
		t.Outcome = store.TryFailed
	default:
		if next, ok := d.cfg.Webhooks.NextTry(c.Attempts, r, d.clock.Now(), expires); ok {
			t.Outcome, t.NextTry = store.TryRetry, next
		} else {
			t.Outcome = store.TryFailed
		}
	}
	d.metrics.RunCallbackTries.WithLabelValues(t.Outcome).Inc()
	if t.Outcome != store.TryDelivered {
		d.log.Info("run callback try failed", "callback", c.ID, "submission_id", c.SubmissionID, "attempt", c.Attempts,
			"outcome", t.Outcome, "status", r.Status, "err", r.Error)
	}
	return t, true
}

// errUnrenderable is a run whose body the renderer refused.
var errUnrenderable = errors.New("the run's callback body could not be rendered")

// renderCallback reads run id and renders its callback body: with the face's renderer,
// or as oj's own API shows the run to an admin when there is none.
func (d *Dispatcher) renderCallback(ctx context.Context, id string) (string, []byte, error) {
	run, err := store.GetRun(ctx, d.db, id)
	if err != nil {
		return "", nil, err
	}
	if d.cfg.RunCallbackBody != nil {
		contentType, body, err := d.cfg.RunCallbackBody(ctx, run)
		if err != nil {
			d.metrics.RunCallbackUnrenderable.Inc()
			return "", nil, fmt.Errorf("%w: %v", errUnrenderable, err)
		}
		return contentType, body, nil
	}
	body, err := json.Marshal(render.Run(run, true))
	if err != nil {
		d.metrics.RunCallbackUnrenderable.Inc()
		return "", nil, fmt.Errorf("%w: %v", errUnrenderable, err)
	}
	return "application/json", body, nil
}

// runCallbackHousekeeping prunes ended callbacks past webhooks.retention and refreshes
// the callbacks' gauges.
func (d *Dispatcher) runCallbackHousekeeping(ctx context.Context, now time.Time) {
	for {
		n, err := store.PruneRunCallbacks(ctx, d.db, now.Add(-d.cfg.Webhooks.Retention), 5000)
		if err != nil {
			d.log.Warn("prune run callbacks", "err", err)
			break
		}
		if n < 5000 {
			break
		}
	}
	b, err := store.RunCallbackCounts(ctx, d.db)
	if err != nil {
		d.log.Warn("run callback backlog", "err", err)
		return
	}
	d.metrics.RunCallbackBacklog.Set(float64(b.Pending))
	d.metrics.RunCallbackFailed.Set(float64(b.Failed))
	age := 0.0
	if b.OldestPending != nil {
		age = max(0, now.Sub(*b.OldestPending).Seconds())
	}
	d.metrics.RunCallbackOldestPending.Set(age)
}
