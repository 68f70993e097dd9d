package ops

import (
	"context"
	"fmt"

	"oj/core/store"
)

// problemParams are the audited params of an action on one problem.
type problemParams struct {
	ProblemID string `json:"problem_id"`
}

// RemoveCounts says what a problem removal did (or would do): Action is
// store.ProblemArchived or store.ProblemDeleted, Submissions how many the problem has
// (kept, when it is archived).
type RemoveCounts struct {
	Action      string `json:"action"`
	Submissions int64  `json:"submissions"`
}

// RemoveProblem archives a problem that has submissions and deletes one that has none
// (store.RemoveProblem), in one transaction with its audit row; a dry run is that
// transaction rolled back. Removing an archived problem again keeps it archived.
// ErrNotFound, unaudited (nothing was tried), when the problem does not exist.
func (o *Ops) RemoveProblem(ctx context.Context, req Request, id string) (RemoveCounts, error) {
	if _, err := store.GetProblem(ctx, o.db, id); err != nil {
		return RemoveCounts{}, fmt.Errorf("remove problem: %w", err)
	}
	return audited(ctx, o, req, ActionProblemRemove, problemParams{ProblemID: id}, true,
		func(ctx context.Context, db store.DB) (RemoveCounts, error) {
			action, n, err := store.RemoveProblem(ctx, db, id, o.clock.Now())
			return RemoveCounts{Action: action, Submissions: n}, err
		})
}
