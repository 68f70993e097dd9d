package webhook

import (
	"fmt"
	"time"
)

// Config configures webhooks (key "webhooks" of ojd.yaml); the dispatcher sends them.
type Config struct {
	// AllowPrivate lets webhooks reach loopback, private and link-local addresses: for a
	// receiver on the judge's own network, and tests. Off, such an address is refused
	// when dialled.
	AllowPrivate bool `mapstructure:"allow_private"`
	// Timeout bounds one try, from dialling to the end of the answer's headers and the
	// part of the body that is read.
	Timeout time.Duration `mapstructure:"timeout"`
	// Schedule is the wait after each failed try (the last step repeats); a delivery is
	// tried until the schedule's total has passed since its first try, then failed. Each
	// wait is jittered by ±20 %.
	Schedule []time.Duration `mapstructure:"schedule"`
	// Concurrency is how many tries run at once.
	Concurrency int `mapstructure:"concurrency"`
	// ConcurrencyPerEndpoint is how many tries one endpoint may have in flight at once,
	// over all dispatchers: a receiver that is slow or never answers holds at most this
	// many of the senders, and the others go on with the other endpoints.
	ConcurrencyPerEndpoint int `mapstructure:"concurrency_per_endpoint"`
	// Lease is how long a claimed delivery belongs to its dispatcher: one killed
	// mid-try leaves the delivery to be tried again this long after the claim. The
	// fan-out holds a page this long too, at most 15 s.
	Lease time.Duration `mapstructure:"lease"`
	// MaxResponseBytes is how much of an answer's body is read (and kept as the
	// delivery's last error when it is not a 2xx).
	MaxResponseBytes int `mapstructure:"max_response_bytes"`
	// FanoutBatch is how many feed events one fan-out page takes (tried, then written
	// in one transaction).
	FanoutBatch int `mapstructure:"fanout_batch"`
	// PollInterval bounds how long the fan-out and the senders wait for a notification
	// before they look again.
	PollInterval time.Duration `mapstructure:"poll_interval"`
	// Retention keeps delivered deliveries this long (failed ones are kept until
	// redelivered or their endpoint is removed).
	Retention time.Duration `mapstructure:"retention"`
	// RotationGrace is how long an endpoint's previous secret keeps signing (a second
	// signature) after a rotation.
	RotationGrace time.Duration `mapstructure:"rotation_grace"`
	// CallbackSecret signs run callbacks (a run's callback URL, given by its caller, not
	// an endpoint with a secret of its own): whsec_ and base64, as webhook secrets. Empty,
	// callbacks go out unsigned: webhook-id and webhook-timestamp are sent, no
	// webhook-signature.
	CallbackSecret string `mapstructure:"callback_secret"`
}

// DefaultConfig returns the defaults: 10 s tries, 16 at once and 4 at once to one
// endpoint, retried for about three days (5s, 1m, 5m, 30m, 2h, 5h, then 10h seven
// times: 77h36m05s).
func DefaultConfig() Config {
	return Config{
		Timeout: 10 * time.Second,
		Schedule: []time.Duration{5 * time.Second, time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
			5 * time.Hour, 10 * time.Hour, 10 * time.Hour, 10 * time.Hour, 10 * time.Hour, 10 * time.Hour,
			10 * time.Hour, 10 * time.Hour},
		Concurrency:            16,
		ConcurrencyPerEndpoint: 4,
		Lease:                  time.Minute,
		MaxResponseBytes:       4096,
		FanoutBatch:            500,
		PollInterval:           time.Second,
		Retention:              7 * 24 * time.Hour,
		RotationGrace:          24 * time.Hour,
	}
}

// Window is how long a delivery is tried: the schedule's total.
func (c Config) Window() time.Duration {
	var w time.Duration
	for _, d := range c.Schedule {
		w += d
	}
	return w
}

// Validate names the first bad key.
func (c Config) Validate() error {
	switch {
	case c.Timeout <= 0 || c.Timeout > 5*time.Minute:
		return fmt.Errorf("webhooks.timeout: %v not in (0, 5m]", c.Timeout)
	case len(c.Schedule) == 0 || len(c.Schedule) > 100:
		return fmt.Errorf("webhooks.schedule: %d steps, want 1 to 100", len(c.Schedule))
	case c.Concurrency < 1 || c.Concurrency > 1024:
		return fmt.Errorf("webhooks.concurrency: %d not in 1..1024", c.Concurrency)
	case c.ConcurrencyPerEndpoint < 1 || c.ConcurrencyPerEndpoint > c.Concurrency:
		return fmt.Errorf("webhooks.concurrency_per_endpoint: %d not in 1..%d (webhooks.concurrency)", c.ConcurrencyPerEndpoint, c.Concurrency)
	case c.Lease < 2*c.Timeout:
		return fmt.Errorf("webhooks.lease: %v is under twice webhooks.timeout (%v): a try would outlive its lease", c.Lease, c.Timeout)
	case c.MaxResponseBytes < 0 || c.MaxResponseBytes > 1<<20:
		return fmt.Errorf("webhooks.max_response_bytes: %d not in 0..1048576", c.MaxResponseBytes)
	case c.FanoutBatch < 1 || c.FanoutBatch > 10000:
		return fmt.Errorf("webhooks.fanout_batch: %d not in 1..10000", c.FanoutBatch)
	case c.PollInterval <= 0:
		return fmt.Errorf("webhooks.poll_interval: must be positive")
	case c.Retention < time.Hour:
		return fmt.Errorf("webhooks.retention: %v is under 1h", c.Retention)
	case c.RotationGrace < 0:
		return fmt.Errorf("webhooks.rotation_grace: must not be negative")
	}
	if c.CallbackSecret != "" {
		if _, err := Sign([]string{c.CallbackSecret}, "", 0, nil); err != nil {
			return fmt.Errorf("webhooks.callback_secret: want whsec_ and base64 (32 random bytes: whsec_$(head -c32 /dev/urandom | base64)), or empty")
		}
	}
	for i, d := range c.Schedule {
		if d <= 0 {
			return fmt.Errorf("webhooks.schedule: step %d is %v, want a positive duration", i+1, d)
		}
	}
	return nil
}
