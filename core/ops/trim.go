package ops

import (
	"context"
	"fmt"

	"oj/core/job"
	"oj/core/store"
	"oj/core/stream"
)

// TrimStrategy is how a trim decides what to keep.
type TrimStrategy string

// The trim strategies.
const (
	// TrimSafe is XTRIM MINID at the oldest entry still pending or undelivered
	// (invariant 9).
	TrimSafe TrimStrategy = "safe"
	// TrimMaxLen keeps the newest MaxLen entries, which may drop pending ones: the
	// reconciler re-drives their submissions. It is only ever asked for explicitly.
	TrimMaxLen TrimStrategy = "maxlen"
)

// TrimParams says what to trim.
type TrimParams struct {
	// Lane is the lane to trim; empty: every lane.
	Lane     job.Lane     `json:"lane"`
	Strategy TrimStrategy `json:"strategy"`
	// MaxLen is set with TrimMaxLen only.
	MaxLen *int64 `json:"maxlen,omitempty"`
}

// Validate says what is wrong with p, if anything.
func (p TrimParams) Validate() error {
	switch p.Strategy {
	case TrimSafe:
		if p.MaxLen != nil {
			return fmt.Errorf(`maxlen: only with strategy "maxlen"`)
		}
	case TrimMaxLen:
		if p.MaxLen == nil || *p.MaxLen < 0 {
			return fmt.Errorf(`strategy "maxlen" needs an explicit maxlen >= 0`)
		}
	default:
		return fmt.Errorf(`strategy: %q (want "safe" or "maxlen")`, p.Strategy)
	}
	return nil
}

// TrimCounts reports a trim: lengths before and after, summed over the lanes trimmed, the
// entries removed (WouldRemove instead in a dry run, whose LengthAfter is the length it
// would leave), and each lane's part.
type TrimCounts struct {
	LengthBefore int64      `json:"length_before"`
	LengthAfter  int64      `json:"length_after"`
	Removed      int64      `json:"removed"`
	WouldRemove  int64      `json:"would_remove"`
	Lanes        []LaneTrim `json:"lanes"`
}

// LaneTrim is one lane's part of a trim.
type LaneTrim struct {
	Lane         job.Lane `json:"lane"`
	LengthBefore int64    `json:"length_before"`
	LengthAfter  int64    `json:"length_after"`
	MinID        string   `json:"min_id,omitempty"`
}

// Trim trims the lane streams by p's strategy (a dry run computes the lengths only).
func (o *Ops) Trim(ctx context.Context, req Request, p TrimParams) (TrimCounts, error) {
	if err := p.Validate(); err != nil {
		return TrimCounts{}, err
	}
	lanes := job.Lanes
	if p.Lane != "" {
		lanes = []job.Lane{p.Lane}
	}
	return audited(ctx, o, req, ActionTrim, p, false, func(ctx context.Context, _ store.DB) (TrimCounts, error) {
		c := TrimCounts{Lanes: []LaneTrim{}}
		for _, lane := range lanes {
			n, err := o.streams.StreamLength(ctx, o.streams.Keys.Jobs(lane))
			if err != nil {
				return c, err
			}
			var tr stream.TrimResult
			switch {
			case n == 0:
				// Nothing to trim (and a missing stream has no group to ask).
			case p.Strategy == TrimSafe:
				tr, err = o.streams.TrimSafe(ctx, lane, req.DryRun)
			default:
				tr, err = o.streams.TrimMaxLen(ctx, lane, *p.MaxLen, req.DryRun)
			}
			if err != nil {
				return c, err
			}
			c.Lanes = append(c.Lanes, LaneTrim{Lane: lane, LengthBefore: tr.Before, LengthAfter: tr.After, MinID: tr.MinID})
			c.LengthBefore += tr.Before
			c.LengthAfter += tr.After
			tally(req.DryRun, tr.Before-tr.After, &c.Removed, &c.WouldRemove)
		}
		return c, nil
	})
}
