package dispatch

import (
	"github.com/prometheus/client_golang/prometheus"

	"oj/core/job"
)

// Metrics of the dispatcher. No submission ids as labels (invariant 11).
type Metrics struct {
	Relayed       *prometheus.CounterVec
	RelayErrors   prometheus.Counter
	Redriven      prometheus.Counter
	Backlog       prometheus.Gauge
	OldestAge     prometheus.Gauge
	RelayDuration prometheus.Histogram
	// Window is each lane's release window (fair.go); Waiting its job rows not released
	// yet and OldestWait how long the oldest of them has waited.
	Window     *prometheus.GaugeVec
	Waiting    *prometheus.GaugeVec
	OldestWait *prometheus.GaugeVec
	// Webhooks: tries by what they decided for their delivery, deliveries written by
	// the fan-out, the backlog of enabled endpoints, endpoints the dispatcher disabled.
	WebhookDeliveries        *prometheus.CounterVec
	WebhookFannedOut         prometheus.Counter
	WebhookBacklog           prometheus.Gauge
	WebhookOldestPending     prometheus.Gauge
	WebhookEndpointsDisabled *prometheus.CounterVec
	WebhookTrySeconds        prometheus.Histogram
	// WebhookUnrenderable counts events sent as their stand-in (core/render): their
	// stored data could not be rendered.
	WebhookUnrenderable prometheus.Counter
	// Run callbacks (run_callbacks.go): tries by what they decided, callbacks pending,
	// the oldest pending one's age, failed ones kept, and bodies the renderer refused.
	RunCallbackTries         *prometheus.CounterVec
	RunCallbackBacklog       prometheus.Gauge
	RunCallbackOldestPending prometheus.Gauge
	RunCallbackFailed        prometheus.Gauge
	RunCallbackUnrenderable  prometheus.Counter
	// NoWorker counts, per lane and language, the job rows held back because no live
	// active worker runs their language (capable.go).
	NoWorker *prometheus.GaugeVec
	// LanguageWorkers counts, per language and worker state, the live workers that run
	// it (languagewatch.go).
	LanguageWorkers *prometheus.GaugeVec
	// RunsPruned counts runs deleted past runs.retention.
	RunsPruned prometheus.Counter
	// StallReleases counts, per lane, the watchdog's releases into a lane that stayed shut
	// while its workers idled (stall.go).
	StallReleases *prometheus.CounterVec
}

// NewMetrics registers the dispatcher's metrics with reg (nil: not registered).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Relayed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "oj_outbox_relayed_total", Help: "Outbox rows added to a stream, by lane.",
		}, []string{"lane"}),
		RelayErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "oj_outbox_relay_errors_total", Help: "Outbox rows whose XADD failed (retried with backoff).",
		}),
		Redriven: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "oj_reconciler_redriven_total", Help: "Live submissions re-driven because their stream entry was lost.",
		}),
		Backlog: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "oj_outbox_backlog", Help: "Undelivered outbox rows.",
		}),
		OldestAge: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "oj_outbox_oldest_age_seconds", Help: "Age of the oldest undelivered outbox row.",
		}),
		RelayDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "oj_outbox_relay_batch_seconds", Help: "Time to relay one batch.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14),
		}),
		Window: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "oj_lane_release_window", Help: "Entries a lane's stream may hold waiting for a worker (fair release).",
		}, []string{"lane"}),
		Waiting: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "oj_lane_waiting", Help: "Committed submissions of a lane waiting in the outbox for their turn.",
		}, []string{"lane"}),
		OldestWait: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "oj_lane_oldest_wait_seconds", Help: "How long the oldest submission waiting in a lane's outbox has waited.",
		}, []string{"lane"}),
		WebhookDeliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "oj_webhook_deliveries_total",
			Help: "Webhook tries, by what each decided: delivered (a 2xx), retry, failed (its window is over), gone (410).",
		}, []string{"outcome"}),
		WebhookFannedOut: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "oj_webhook_fanned_out_total", Help: "Webhook deliveries written by the fan-out (one per event and endpoint).",
		}),
		WebhookBacklog: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "oj_webhook_backlog", Help: "Webhook deliveries of enabled endpoints not delivered yet.",
		}),
		WebhookOldestPending: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "oj_webhook_oldest_pending_seconds", Help: "Age of the oldest webhook delivery of an enabled endpoint not delivered yet.",
		}),
		WebhookEndpointsDisabled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "oj_webhook_endpoints_disabled_total",
			Help: "Webhook endpoints the dispatcher disabled, by reason: gone (answered 410), failing (the whole retry window).",
		}, []string{"reason"}),
		WebhookTrySeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "oj_webhook_try_seconds", Help: "Time of one webhook try, to the answer or the error.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 15),
		}),
		NoWorker: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "oj_lane_waiting_no_worker", Help: "Submissions held in the outbox because no live active worker runs their language, by lane and language.",
		}, []string{"lane", "language"}),
		WebhookUnrenderable: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "oj_webhook_unrenderable_events_total",
			Help: "Events whose stored data could not be rendered, sent to webhooks as their stand-in (render_error set).",
		}),
		LanguageWorkers: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "oj_language_workers", Help: "Live workers that run a language, by language and state (active, draining, disabled, quarantined); a language whose last worker stopped stays at 0.",
		}, []string{"language", "state"}),
		RunCallbackTries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "oj_run_callback_tries_total",
			Help: "Run callback tries, by what each decided: delivered (a 2xx), retry, failed (its window is over, a 410, or no body).",
		}, []string{"outcome"}),
		RunCallbackBacklog: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "oj_run_callback_backlog", Help: "Run callbacks not delivered yet and still tried.",
		}),
		RunCallbackOldestPending: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "oj_run_callback_oldest_pending_seconds", Help: "Age of the oldest run callback not delivered yet.",
		}),
		RunCallbackFailed: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "oj_run_callback_failed", Help: "Run callbacks given up (kept for webhooks.retention).",
		}),
		RunCallbackUnrenderable: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "oj_run_callback_unrenderable_total", Help: "Run callbacks whose body the renderer refused (given up).",
		}),
		RunsPruned: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "oj_runs_pruned_total", Help: "Runs deleted because they were older than runs.retention.",
		}),
		StallReleases: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "oj_lane_stall_releases_total",
			Help: "Releases by the stall watchdog into a lane that stayed shut, unread, with idle workers, for dispatcher.lane_stall_after (its figures were wrong).",
		}, []string{"lane"}),
	}
	for _, lane := range job.Lanes {
		m.StallReleases.WithLabelValues(string(lane))
	}
	for _, o := range []string{"delivered", "retry", "failed", "gone"} {
		m.WebhookDeliveries.WithLabelValues(o)
	}
	for _, o := range []string{"delivered", "retry", "failed"} {
		m.RunCallbackTries.WithLabelValues(o)
	}
	for _, r := range []string{"gone", "failing"} {
		m.WebhookEndpointsDisabled.WithLabelValues(r)
	}
	if reg != nil {
		reg.MustRegister(m.Relayed, m.RelayErrors, m.Redriven, m.Backlog, m.OldestAge, m.RelayDuration,
			m.Window, m.Waiting, m.OldestWait, m.WebhookDeliveries, m.WebhookFannedOut, m.WebhookBacklog,
			m.WebhookOldestPending, m.WebhookEndpointsDisabled, m.WebhookTrySeconds, m.WebhookUnrenderable, m.NoWorker,
			m.LanguageWorkers, m.RunsPruned, m.StallReleases, m.RunCallbackTries, m.RunCallbackBacklog,
			m.RunCallbackOldestPending, m.RunCallbackFailed, m.RunCallbackUnrenderable)
	}
	return m
}
