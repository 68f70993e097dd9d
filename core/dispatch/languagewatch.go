package dispatch

import (
	"context"
	"slices"
	"strings"

	"oj/core/store"
)

// The last live worker of a language never goes quiet. Every waitingRefresh the
// dispatcher counts, per language, the live workers that run it by state (the gauge
// oj_language_workers, which the alert OjLanguageWithoutActiveWorker watches), and logs
// when a language is left without a live active worker — its only worker quarantined,
// disabled, drained or gone — and when one returns. A language stays watched, at 0,
// once its last worker stopped; the set is the languages workers announced since the
// dispatcher started (languages are a small fixed set).

// watchLanguages updates the gauge and logs what changed.
func (d *Dispatcher) watchLanguages(ctx context.Context) {
	live, err := store.LiveLanguageWorkers(ctx, d.db)
	if err != nil {
		if ctx.Err() == nil {
			d.log.Warn("count live workers per language", "err", err)
		}
		return
	}
	c := &d.capable
	c.mu.Lock()
	if c.watched == nil {
		c.watched = map[string]bool{}
	}
	before := map[string]bool{}
	for l, ok := range c.watched {
		before[l] = ok
	}
	for l := range live {
		if l != "" {
			c.watched[l] = true
		}
	}
	langs := make([]string, 0, len(c.watched))
	for l := range c.watched {
		langs = append(langs, l)
	}
	c.mu.Unlock()
	slices.Sort(langs)
	anyActive := live[""].States[store.WorkerActive] // workers that run every language
	for _, l := range langs {
		lw := live[l]
		for _, st := range store.WorkerStates {
			d.metrics.LanguageWorkers.WithLabelValues(l, string(st)).Set(float64(lw.States[st]))
		}
		active := lw.States[store.WorkerActive]+anyActive > 0
		was, seen := before[l]
		c.mu.Lock()
		c.watched[l] = active
		c.mu.Unlock()
		switch {
		case !active && (!seen || was):
			d.log.Error("no live active worker runs "+l+": its submissions wait ("+describe(lw)+")",
				"language", l, "runbook", "runbooks/worker-quarantined.md")
		case active && seen && !was:
			d.log.Info("a live active worker runs "+l+" again", "language", l)
		}
	}
}

// describe says what became of a language's live workers: "none live", or their states
// with names ("quarantined: w1").
func describe(lw store.LanguageWorkers) string {
	if lw.Live() == 0 {
		return "no live worker runs it"
	}
	var parts []string
	for _, st := range store.WorkerStates {
		if n := lw.Names[st]; len(n) > 0 {
			parts = append(parts, string(st)+": "+strings.Join(n, ", "))
		}
	}
	return strings.Join(parts, "; ")
}
