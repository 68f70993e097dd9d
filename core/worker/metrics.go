package worker

import "github.com/prometheus/client_golang/prometheus"

// Metrics of a worker. Labels are lanes, outcomes, verdicts and reasons only (invariant 11).
type Metrics struct {
	Claims          *prometheus.CounterVec
	Finalized       *prometheus.CounterVec
	FinalizeRejects *prometheus.CounterVec
	AttemptsEnded   *prometheus.CounterVec
	Reclaimed       *prometheus.CounterVec
	LostEntries     prometheus.Counter
	InFlight        *prometheus.GaugeVec
	JudgeSeconds    *prometheus.HistogramVec
	Errors          *prometheus.CounterVec
	// State is 1 for the state the worker is in (active, draining, disabled,
	// quarantined), 0 for the others.
	State       *prometheus.GaugeVec
	Quarantines prometheus.Counter
	// QuarantinesLeft counts quarantines lifted, by who lifted them: self_check (it
	// passed again) or operator (ojctl worker enable, or a disable or drain over it).
	QuarantinesLeft *prometheus.CounterVec
	// SelfChecks counts the self-checks re-run while quarantined, by result.
	SelfChecks *prometheus.CounterVec
	// HostBusy counts attempts the host's load kept from a verdict (not counted
	// towards the quarantine).
	HostBusy   prometheus.Counter
	HandedBack *prometheus.CounterVec
}

// NewMetrics registers the worker's metrics with reg (nil: not registered).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Claims: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "oj_claims_total", Help: "Claim decisions for delivered entries, by lane and outcome.",
		}, []string{"lane", "outcome"}),
		Finalized: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "oj_finalized_total", Help: "Verdicts written back, by lane and verdict.",
		}, []string{"lane", "verdict"}),
		FinalizeRejects: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "oj_finalize_rejected_total", Help: "Fenced write-backs that matched no row, by reason.",
		}, []string{"reason"}),
		AttemptsEnded: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "oj_attempts_ended_total", Help: "Attempts ended without a verdict, by resulting state (queued = retry, dead, or a fence reason).",
		}, []string{"result"}),
		Reclaimed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "oj_reclaimed_total", Help: "Entries taken over by the reclaim loop, by lane and claim outcome.",
		}, []string{"lane", "outcome"}),
		LostEntries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "oj_reclaim_deleted_entries_total", Help: "Pending entries XAUTOCLAIM reported deleted from the stream (handed to the reconciler).",
		}),
		InFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "oj_worker_in_flight", Help: "Submissions claimed and not yet written back (judging, or waiting for the write-back), by lane.",
		}, []string{"lane"}),
		JudgeSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "oj_judge_seconds", Help: "Time from claim to verdict, by lane.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}, []string{"lane"}),
		Errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "oj_worker_errors_total", Help: "System errors (PostgreSQL or Redis unreachable), by step.",
		}, []string{"step"}),
		State: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "oj_worker_state", Help: "1 for the state this worker is in (active, draining, disabled, quarantined), 0 for the others.",
		}, []string{"state"}),
		Quarantines: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "oj_worker_quarantines_total", Help: "Times this worker quarantined itself after worker.quarantine_after system errors in a row.",
		}),
		QuarantinesLeft: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "oj_worker_quarantines_left_total", Help: "Quarantines of this worker lifted, by who lifted them (self_check: it passed again; operator).",
		}, []string{"by"}),
		SelfChecks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "oj_worker_self_checks_total", Help: "Self-checks re-run while quarantined, by result (pass, fail).",
		}, []string{"result"}),
		HostBusy: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "oj_worker_host_busy_total", Help: "Attempts the host's load kept from a verdict (a run held up past sandbox.max_stall); retried, never counted towards the quarantine.",
		}),
		HandedBack: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "oj_worker_handed_back_total", Help: "Submissions handed back unclaimed, by lane and reason (incapable: a language this worker does not run; parked: the worker is not active).",
		}, []string{"lane", "reason"}),
	}
	if reg != nil {
		reg.MustRegister(m.Claims, m.Finalized, m.FinalizeRejects, m.AttemptsEnded, m.Reclaimed, m.LostEntries,
			m.InFlight, m.JudgeSeconds, m.Errors, m.State, m.Quarantines, m.QuarantinesLeft, m.SelfChecks, m.HostBusy, m.HandedBack)
	}
	return m
}
