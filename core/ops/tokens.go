package ops

import (
	"context"
	"fmt"

	"oj/core/store"
)

// TokenCreateParams is a token to create: the audit row's parameters (never the secret).
type TokenCreateParams struct {
	Name        string   `json:"name"`
	Role        string   `json:"role"`
	SubmitRate  *float64 `json:"submit_rate,omitempty"`
	SubmitBurst *int     `json:"submit_burst,omitempty"`
	MaxLive     *int     `json:"max_live,omitempty"`
	RunMaxLive  *int     `json:"run_max_live,omitempty"`
}

// TokenCreateCounts counts what a token creation did, or in a dry run would do.
type TokenCreateCounts struct {
	Created     int `json:"created"`
	WouldCreate int `json:"would_create"`
}

// CreatedToken is the outcome of CreateToken: the token, and its secret (empty in a dry
// run: nothing was created).
type CreatedToken struct {
	Token  *store.Token
	Secret string
	Counts TokenCreateCounts
}

// CreateToken creates an API token, audited in the same transaction; a dry run checks
// everything (the name is free, the role exists) and creates nothing.
// store.ErrTokenExists when the name is taken.
func (o *Ops) CreateToken(ctx context.Context, req Request, p TokenCreateParams) (CreatedToken, error) {
	var out CreatedToken
	counts, err := audited(ctx, o, req, ActionTokenCreate, p, true, func(ctx context.Context, db store.DB) (TokenCreateCounts, error) {
		secret, tok, err := store.CreateTokenWith(ctx, db, store.NewToken{Name: p.Name, Role: p.Role,
			SubmitRate: p.SubmitRate, SubmitBurst: p.SubmitBurst, MaxLive: p.MaxLive, RunMaxLive: p.RunMaxLive, CreatedBy: req.Actor})
		if err != nil {
			return TokenCreateCounts{}, err
		}
		out.Token = tok
		if !req.DryRun {
			out.Secret = secret
		}
		var c TokenCreateCounts
		tally(req.DryRun, 1, &c.Created, &c.WouldCreate)
		return c, nil
	})
	if err != nil {
		return CreatedToken{}, fmt.Errorf("create token: %w", err)
	}
	out.Counts = counts
	return out, nil
}

// TokenRevokeCounts counts what a revocation did, or in a dry run would do.
type TokenRevokeCounts struct {
	Revoked     int `json:"revoked"`
	WouldRevoke int `json:"would_revoke"`
}

type tokenParams struct {
	Name string `json:"name"`
}

// RevokeToken revokes the live token called name (its submissions stay), audited in the
// same transaction. store.ErrNotFound when no live token has the name.
func (o *Ops) RevokeToken(ctx context.Context, req Request, name string) (TokenRevokeCounts, error) {
	return audited(ctx, o, req, ActionTokenRevoke, tokenParams{Name: name}, true, func(ctx context.Context, db store.DB) (TokenRevokeCounts, error) {
		if err := store.RevokeToken(ctx, db, name); err != nil {
			return TokenRevokeCounts{}, err
		}
		var c TokenRevokeCounts
		tally(req.DryRun, 1, &c.Revoked, &c.WouldRevoke)
		return c, nil
	})
}
