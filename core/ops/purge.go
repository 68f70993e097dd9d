package ops

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"oj/core/store"
)

// PurgeParams says which dead letters to purge: IDs, or All.
type PurgeParams struct {
	IDs []string `json:"ids"`
	All bool     `json:"all"`
}

// PurgeCounts counts a purge: Purged what was removed, WouldPurge (dry runs only) what
// would have been; the other one is zero.
type PurgeCounts struct {
	Requested  int `json:"requested"`
	Purged     int `json:"purged"`
	WouldPurge int `json:"would_purge"`
}

// Purge removes dead letters without judging them again (store.PurgeDeadLetters), in
// batches of one transaction each: the submissions stay dead with verdict SE and their
// error, and their history records who purged them. With All it pages through the dead
// letters as Replay does; letters that die while it runs may be purged too.
func (o *Ops) Purge(ctx context.Context, req Request, p PurgeParams) (PurgeCounts, error) {
	return audited(ctx, o, req, ActionPurge, p, false, func(ctx context.Context, db store.DB) (PurgeCounts, error) {
		var c PurgeCounts
		now := o.clock.Now()
		var err error
		c.Requested, err = deadLetterBatches(ctx, db, p.IDs, p.All, func(ids []string) error {
			n, err := o.requeue(ctx, req.DryRun, func(tx pgx.Tx) (int, error) {
				return store.PurgeDeadLetters(ctx, tx, ids, req.Actor, now)
			})
			tally(req.DryRun, n, &c.Purged, &c.WouldPurge)
			return err
		})
		return c, err
	})
}

// deadLetterBatches hands fn the dead letters an action names, a batch at a time: ids, or
// with all every dead letter, paged oldest first (letters that die meanwhile may be in
// it). It returns how many ids it handed over, or were asked for.
func deadLetterBatches(ctx context.Context, db store.DB, ids []string, all bool, fn func([]string) error) (int, error) {
	if !all {
		for i := 0; i < len(ids); i += batch {
			if err := fn(ids[i:min(i+batch, len(ids))]); err != nil {
				return len(ids), err
			}
		}
		return len(ids), nil
	}
	n := 0
	var since time.Time
	after := ""
	for {
		page, err := store.ListDeadLetters(ctx, db, batch, since, after)
		if err != nil || len(page) == 0 {
			return n, err
		}
		ids := make([]string, len(page))
		for i, d := range page {
			ids[i] = d.SubmissionID
		}
		n += len(ids)
		if err := fn(ids); err != nil {
			return n, err
		}
		since, after = page[len(page)-1].DeadSince, page[len(page)-1].SubmissionID
		if len(page) < batch {
			return n, nil
		}
	}
}
