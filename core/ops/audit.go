package ops

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/jackc/pgx/v5"

	"oj/core/store"
)

// Action names an audited admin action (the audit row's action column).
type Action string

// The audited actions.
const (
	ActionReclaim        Action = "reclaim"
	ActionReplay         Action = "dlq_replay"
	ActionRejudge        Action = "rejudge"
	ActionRejudgeProblem Action = "rejudge_problem"
	ActionCancel         Action = "cancel"
	ActionTrim           Action = "trim"
	ActionProblemPush    Action = "problem_push"
	ActionProblemRemove  Action = "problem_remove"
	ActionPurge          Action = "dlq_purge"
	ActionProblemVerify  Action = "problem_verify"
	ActionTokenCreate    Action = "token_create"
	ActionTokenRevoke    Action = "token_revoke"
	// The webhook endpoints' actions. webhook_disable is also the dispatcher's, when an
	// endpoint answers 410 or fails for the whole retry window (actor "dispatcher").
	ActionWebhookCreate    Action = "webhook_create"
	ActionWebhookRemove    Action = "webhook_remove"
	ActionWebhookEnable    Action = "webhook_enable"
	ActionWebhookDisable   Action = "webhook_disable"
	ActionWebhookRotate    Action = "webhook_rotate"
	ActionWebhookRedeliver Action = "webhook_redeliver"
	ActionWebhookTest      Action = "webhook_test"
)

// audited runs an action and writes its audit row (invariant 8), the only place that
// does. With oneTx, run gets a transaction: a real run that succeeds writes its audit
// row in it and commits both; a dry run, or a run that fails, is rolled back whole (its
// counts are zero then: nothing happened) and the row is written on its own. Without
// oneTx, run gets the pool and the row is written when it returns, with the counts of
// what it did by then. An error is recorded with the counts: a refusal (store.ErrConflict)
// as "refused", anything else as "error".
func audited[C any](ctx context.Context, o *Ops, req Request, action Action, params any, oneTx bool,
	run func(ctx context.Context, db store.DB) (C, error)) (C, error) {
	var counts C
	var err error
	if !oneTx {
		counts, err = run(ctx, o.db)
		o.Record(ctx, req, action, params, counts, err)
		return counts, err
	}
	err = store.InDryTx(ctx, o.db, req.DryRun, func(tx pgx.Tx) error {
		c, err := run(ctx, tx)
		if err != nil {
			return err
		}
		counts = c
		if req.DryRun {
			return nil
		}
		return store.AddAudit(ctx, tx, auditRow(req, action, params, counts, nil))
	})
	if err != nil {
		var zero C
		counts = zero
	}
	if err != nil || req.DryRun {
		o.Record(ctx, req, action, params, counts, err)
	}
	return counts, err
}

// Record writes the audit row of an action that already happened (or failed): a few
// tries, then a logged error with everything the row would have held — the action is
// not undone for want of its record. Actions of this package go through audited; Record
// is for the audited steps of other components (a problem upload).
func (o *Ops) Record(ctx context.Context, req Request, action Action, params, counts any, err error) {
	ctx = context.WithoutCancel(ctx)
	a := auditRow(req, action, params, counts, err)
	var aerr error
	for try := 0; try < 3; try++ {
		if aerr = store.AddAudit(ctx, o.db, a); aerr == nil {
			return
		}
	}
	o.log.Error("audit row lost", "action", action, "actor", req.Actor, "dry_run", req.DryRun, "params", a.Params,
		"counts", a.Counts, "err", aerr, "trace_id", req.TraceID)
}

func auditRow(req Request, action Action, params, counts any, err error) store.Audit {
	c := fields(counts)
	switch {
	case err == nil:
	case errors.Is(err, store.ErrConflict):
		c["refused"] = err.Error()
	default:
		c["error"] = err.Error()
	}
	return store.Audit{Actor: req.Actor, Action: string(action), DryRun: req.DryRun, Params: fields(params), Counts: c}
}

// fields turns typed params or counts into the audit row's jsonb object, by their json
// tags (the audit row's column shape).
func fields(v any) map[string]any {
	m := map[string]any{}
	if b, err := json.Marshal(v); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return m
}
