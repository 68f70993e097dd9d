package ops

import (
	"context"
	"fmt"

	"oj/core/store"
)

// The worker actions.
const (
	ActionWorkerDrain   Action = "worker_drain"
	ActionWorkerDisable Action = "worker_disable"
	ActionWorkerEnable  Action = "worker_enable"
)

// WorkerParams is a worker action's parameters: the worker and why.
type WorkerParams struct {
	Name   string `json:"name"`
	Reason string `json:"reason,omitempty"`
}

// WorkerCounts counts what a worker action did, or in a dry run would do, and the state
// the worker was in before.
type WorkerCounts struct {
	Changed     int    `json:"changed"`
	WouldChange int    `json:"would_change"`
	From        string `json:"from"`
}

// SetWorkerState drains, disables or enables worker p.Name (state draining, disabled or
// active), audited in the same transaction; the worker obeys within worker.state_poll,
// and its claims are refused from the commit on. Enabling is also how an operator ends a
// quarantine. store.ErrNotFound when no worker has the name; store.ErrConflict when it is
// already in that state.
func (o *Ops) SetWorkerState(ctx context.Context, req Request, p WorkerParams, state store.WorkerState) (WorkerCounts, error) {
	var action Action
	switch state {
	case store.WorkerDraining:
		action = ActionWorkerDrain
	case store.WorkerDisabled:
		action = ActionWorkerDisable
	case store.WorkerActive:
		action = ActionWorkerEnable
	default:
		return WorkerCounts{}, fmt.Errorf("set worker state: an operator cannot set %q", state)
	}
	return audited(ctx, o, req, action, p, true, func(ctx context.Context, db store.DB) (WorkerCounts, error) {
		reason := p.Reason
		if reason == "" {
			reason = string(action) + " by " + req.Actor
		}
		prev, err := store.SetWorkerState(ctx, db, p.Name, state, reason, req.Actor, o.clock.Now())
		if err != nil {
			return WorkerCounts{}, err
		}
		c := WorkerCounts{From: string(prev)}
		tally(req.DryRun, 1, &c.Changed, &c.WouldChange)
		return c, nil
	})
}
