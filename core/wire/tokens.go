package wire

import "time"

// Token is an API token as admins see it (never its secret, which is shown once, at
// creation). SubmitRate, SubmitBurst and MaxLive are the token's own submit bounds,
// RunMaxLive its own bound on its runs queued or running; null means the configured
// default (api.limits.user_rate, user_burst, max_live_per_user, run_max_live_per_user).
type Token struct {
	Name        string     `json:"name"`
	Role        string     `json:"role"`
	SubmitRate  *float64   `json:"submit_rate"`
	SubmitBurst *int       `json:"submit_burst"`
	MaxLive     *int       `json:"max_live"`
	RunMaxLive  *int       `json:"run_max_live"`
	CreatedAt   time.Time  `json:"created_at"`
	CreatedBy   string     `json:"created_by"`
	RevokedAt   *time.Time `json:"revoked_at"`
}

// TokenList is the answer of GET /admin/v1/tokens.
type TokenList struct {
	Items []Token `json:"items"`
}

// TokenCreateRequest is the body of POST /admin/v1/tokens.
type TokenCreateRequest struct {
	Name        string   `json:"name"`
	Role        string   `json:"role"`
	SubmitRate  *float64 `json:"submit_rate,omitempty"`
	SubmitBurst *int     `json:"submit_burst,omitempty"`
	MaxLive     *int     `json:"max_live,omitempty"`
	RunMaxLive  *int     `json:"run_max_live,omitempty"`
	DryRun      bool     `json:"dry_run"`
}

// TokenCreated is the answer of POST /admin/v1/tokens: the token, and its secret, shown
// this once (empty in a dry run).
type TokenCreated struct {
	DryRun bool   `json:"dry_run"`
	Token  Token  `json:"token"`
	Secret string `json:"secret,omitempty"`
}

// TokenRevoked is the answer of DELETE /admin/v1/tokens/{name}[?dry_run=true].
type TokenRevoked struct {
	DryRun      bool   `json:"dry_run"`
	Name        string `json:"name"`
	Revoked     int    `json:"revoked"`
	WouldRevoke int    `json:"would_revoke"`
}
