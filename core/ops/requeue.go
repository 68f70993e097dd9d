package ops

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"oj/core/job"
	"oj/core/store"
)

// ReplayParams says which dead letters to replay: IDs, or All.
type ReplayParams struct {
	IDs []string `json:"ids"`
	All bool     `json:"all"`
}

// ReplayCounts counts a replay: Replayed what was replayed, WouldReplay (dry runs only)
// what would have been; the other one is zero.
type ReplayCounts struct {
	Requested   int `json:"requested"`
	Replayed    int `json:"replayed"`
	WouldReplay int `json:"would_replay"`
}

// Replay gives dead letters a fresh failure budget and a new attempt through the outbox
// (store.Replay), never a raw XADD, in batches of one transaction each; their dead
// letters are removed and their history keeps the record with the actor's name.
func (o *Ops) Replay(ctx context.Context, req Request, p ReplayParams) (ReplayCounts, error) {
	return audited(ctx, o, req, ActionReplay, p, false, func(ctx context.Context, db store.DB) (ReplayCounts, error) {
		var c ReplayCounts
		now := o.clock.Now()
		var err error
		c.Requested, err = deadLetterBatches(ctx, db, p.IDs, p.All, func(ids []string) error {
			n, err := o.requeue(ctx, req.DryRun, func(tx pgx.Tx) (int, error) { return store.Replay(ctx, tx, ids, req.Actor, now) })
			tally(req.DryRun, n, &c.Replayed, &c.WouldReplay)
			return err
		})
		return c, err
	})
}

// RejudgeCounts counts a rejudge: Rejudged what was sent to the rejudge lane,
// WouldRejudge (dry runs only) what would have been; the other one is zero.
type RejudgeCounts struct {
	Requested    int `json:"requested"`
	Rejudged     int `json:"rejudged"`
	WouldRejudge int `json:"would_rejudge"`
}

// RejudgeSubmission sends one judged (finished, dead or canceled) submission back to the
// queue on the low-priority rejudge lane, through the outbox, in one transaction with its
// audit row. ErrNotFound when it does not exist; ErrConflict, unaudited (nothing was
// tried), while it is still queued or running.
func (o *Ops) RejudgeSubmission(ctx context.Context, req Request, id string) (RejudgeCounts, error) {
	sub, err := store.GetSubmission(ctx, o.db, id)
	if err != nil {
		return RejudgeCounts{}, fmt.Errorf("rejudge: %w", err)
	}
	if !job.Requeueable(sub.State) {
		return RejudgeCounts{}, fmt.Errorf("submission %s is %s: only a finished, dead or canceled submission can be rejudged: %w",
			sub.ID, sub.State, store.ErrConflict)
	}
	params := submissionParams{SubmissionID: id}
	return audited(ctx, o, req, ActionRejudge, params, true, func(ctx context.Context, db store.DB) (RejudgeCounts, error) {
		n, err := store.Rejudge(ctx, db, []string{id}, job.LaneRejudge, req.Actor, o.clock.Now())
		c := RejudgeCounts{Requested: 1}
		tally(req.DryRun, n, &c.Rejudged, &c.WouldRejudge)
		return c, err
	})
}

// RejudgeProblem sends every judged submission of a problem to the rejudge lane, in
// batches of one transaction each, archived problems included. ErrNotFound when the
// problem does not exist.
func (o *Ops) RejudgeProblem(ctx context.Context, req Request, problemID string) (RejudgeCounts, error) {
	// GetProblem, not LatestProblem: an archived problem's submissions can be rejudged.
	if _, err := store.GetProblem(ctx, o.db, problemID); err != nil {
		return RejudgeCounts{}, fmt.Errorf("rejudge: %w", err)
	}
	params := struct {
		ProblemID string `json:"problem_id"`
	}{problemID}
	return audited(ctx, o, req, ActionRejudgeProblem, params, false, func(ctx context.Context, db store.DB) (RejudgeCounts, error) {
		var c RejudgeCounts
		now := o.clock.Now()
		after := ""
		for {
			ids, err := store.ProblemSubmissions(ctx, db, problemID, after, batch)
			if err != nil || len(ids) == 0 {
				return c, err
			}
			c.Requested += len(ids)
			n, err := o.requeue(ctx, req.DryRun, func(tx pgx.Tx) (int, error) {
				return store.Rejudge(ctx, tx, ids, job.LaneRejudge, req.Actor, now)
			})
			tally(req.DryRun, n, &c.Rejudged, &c.WouldRejudge)
			if err != nil {
				return c, err
			}
			after = ids[len(ids)-1]
			if len(ids) < batch {
				return c, nil
			}
		}
	})
}

// requeue runs one batch in its own transaction, rolled back for a dry run.
func (o *Ops) requeue(ctx context.Context, dryRun bool, fn func(tx pgx.Tx) (int, error)) (int, error) {
	var n int
	err := store.InDryTx(ctx, o.db, dryRun, func(tx pgx.Tx) (err error) {
		n, err = fn(tx)
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// submissionParams are the audited params of an action on one submission.
type submissionParams struct {
	SubmissionID string `json:"submission_id"`
}

// CancelCounts says whether the submission was canceled (Canceled 1) or, in a dry run,
// would be (WouldCancel 1).
type CancelCounts struct {
	Canceled    int `json:"canceled"`
	WouldCancel int `json:"would_cancel"`
}

// Cancel cancels a queued or running submission and bumps its attempt, so that a late
// result of the running attempt is fenced off (invariant 4), in one transaction with its
// audit row. ErrNotFound when it does not exist (unaudited); ErrConflict, audited as
// refused, when it is already terminal.
func (o *Ops) Cancel(ctx context.Context, req Request, id string) (CancelCounts, error) {
	if _, err := store.GetSubmission(ctx, o.db, id); err != nil {
		return CancelCounts{}, fmt.Errorf("cancel: %w", err)
	}
	params := submissionParams{SubmissionID: id}
	return audited(ctx, o, req, ActionCancel, params, true, func(ctx context.Context, db store.DB) (CancelCounts, error) {
		if err := store.Cancel(ctx, db, id, req.Actor, o.clock.Now()); err != nil {
			return CancelCounts{}, err
		}
		var c CancelCounts
		tally(req.DryRun, 1, &c.Canceled, &c.WouldCancel)
		return c, nil
	})
}
