package dispatch

import (
	"context"
	"errors"
)

// ErrCrash is the failure FanOutCrashing injects before the fan-out's commit.
var ErrCrash = errors.New("crash before commit")

// FanOutCrashing is a fan-out that does everything and then fails before its commit, as a
// dispatcher dying there would.
func (d *Dispatcher) FanOutCrashing(ctx context.Context) error {
	_, _, err := d.fanOut(ctx, func() error { return ErrCrash })
	return err
}

// SendWebhooksOnce claims what is due (up to webhooks.concurrency), tries each in turn
// and records the tries: one round of the senders, for tests that move a fake clock.
// It returns how many it tried.
func (d *Dispatcher) SendWebhooksOnce(ctx context.Context) (int, error) {
	claimed, err := claimWebhooks(ctx, d, d.cfg.Webhooks.Concurrency)
	if err != nil {
		return 0, err
	}
	var batch []webhookTry
	for _, c := range claimed {
		if t, ok := d.tryDelivery(ctx, c); ok {
			batch = append(batch, webhookTry{try: t, url: c.URL})
		}
	}
	if len(batch) > 0 {
		d.record(ctx, batch)
	}
	return len(claimed), nil
}

// Name is the dispatcher's name on its leases.
func (d *Dispatcher) Name() string { return d.name }

// SendLoop runs the webhook senders alone until ctx ends.
func (d *Dispatcher) SendLoop(ctx context.Context) { d.sendLoop(ctx) }

// WatchLanguagesOnce counts the live workers per language once (the gauge
// oj_language_workers), as the relay does every waitingRefresh.
func (d *Dispatcher) WatchLanguagesOnce(ctx context.Context) { d.watchLanguages(ctx) }
