package ops

import (
	"context"
	"fmt"

	"oj/core/store"
)

// VerifyCounts says what a verification request did (or would do): the verification
// made, how many of the package's labeled submissions it queued, how many it could not
// run (no language), and the time limit they run with.
type VerifyCounts struct {
	VerificationID int64 `json:"verification_id"`
	Version        int   `json:"version"`
	Submissions    int   `json:"submissions"`
	NotRun         int   `json:"not_run"`
	RunLimitMS     int   `json:"run_limit_ms"`
}

type verifyParams struct {
	ProblemID string `json:"problem_id"`
	Version   int    `json:"version"`
}

// VerifyProblem starts a verification of a problem version: its record and one
// submission per labeled source with a language, on the rejudge lane and marked as
// verification submissions, in one transaction with the audit row; a dry run is that
// transaction rolled back (its counts say what it would queue).
func (o *Ops) VerifyProblem(ctx context.Context, req Request, v store.NewVerification) (VerifyCounts, error) {
	if _, err := store.ProblemVersionAt(ctx, o.db, v.ProblemID, v.Version); err != nil {
		return VerifyCounts{}, fmt.Errorf("verify: %w", err)
	}
	v.RequestedBy = req.Actor
	if v.TraceID == "" {
		v.TraceID = req.TraceID
	}
	return audited(ctx, o, req, ActionProblemVerify, verifyParams{ProblemID: v.ProblemID, Version: v.Version}, true,
		func(ctx context.Context, db store.DB) (VerifyCounts, error) {
			id, made, err := store.CreateVerification(ctx, db, v)
			if req.DryRun {
				id = 0 // rolled back: no such verification
			}
			return VerifyCounts{VerificationID: id, Version: v.Version, Submissions: made, NotRun: len(v.Entries) - made,
				RunLimitMS: v.RunLimitMS}, err
		})
}
