package api

import (
	"errors"
	"net/http"
	"regexp"
	"slices"

	"oj/core/ops"
	"oj/core/store"
	"oj/core/wire"
)

// tokenName is what a token may be called: it is shown in logs, the audit log and the
// admin lists.
var tokenName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$`)

// Bounds of a token's own submit settings.
const (
	maxTokenRate  = 10_000
	maxTokenBurst = 100_000
	maxTokenLive  = 1_000_000
)

// listTokens is GET /admin/v1/tokens: every token, revoked ones included, never a secret.
func (s *Server) listTokens(w http.ResponseWriter, r *http.Request, _ *store.Token) error {
	toks, err := store.ListTokens(r.Context(), s.d.DB)
	if err != nil {
		return unavailable("list tokens", err)
	}
	out := wire.TokenList{Items: make([]wire.Token, 0, len(toks))}
	for i := range toks {
		out.Items = append(out.Items, tokenWire(&toks[i]))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// createToken is POST /admin/v1/tokens: a new token whose secret is answered once (201),
// audited; a dry run checks the name and role and creates nothing (200).
func (s *Server) createToken(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	var req wire.TokenCreateRequest
	if err := decodeAdmin(w, r, &req); err != nil {
		return err
	}
	switch {
	case !tokenName.MatchString(req.Name):
		return errorf(http.StatusBadRequest, codeBadRequest, "name: %q: want 1-100 of A-Z, a-z, 0-9, _ . @ -, starting with a letter or digit", quoteClip(req.Name, 110))
	case !slices.Contains(store.Roles, req.Role):
		return errorf(http.StatusBadRequest, codeBadRequest, "role: %q: want user, reader or admin", quoteClip(req.Role, 40))
	case req.SubmitRate != nil && (*req.SubmitRate < 0 || *req.SubmitRate > maxTokenRate):
		return errorf(http.StatusBadRequest, codeBadRequest, "submit_rate: %v not in 0..%d submits per second (0: no bucket)", *req.SubmitRate, maxTokenRate)
	case req.SubmitBurst != nil && (*req.SubmitBurst < 1 || *req.SubmitBurst > maxTokenBurst):
		return errorf(http.StatusBadRequest, codeBadRequest, "submit_burst: %d not in 1..%d", *req.SubmitBurst, maxTokenBurst)
	case req.MaxLive != nil && (*req.MaxLive < 0 || *req.MaxLive > maxTokenLive):
		return errorf(http.StatusBadRequest, codeBadRequest, "max_live: %d not in 0..%d (0: no bound)", *req.MaxLive, maxTokenLive)
	case req.RunMaxLive != nil && (*req.RunMaxLive < 0 || *req.RunMaxLive > maxTokenLive):
		return errorf(http.StatusBadRequest, codeBadRequest, "run_max_live: %d not in 0..%d (0: no bound)", *req.RunMaxLive, maxTokenLive)
	case req.Role == roleReader && (req.SubmitRate != nil || req.SubmitBurst != nil || req.MaxLive != nil || req.RunMaxLive != nil):
		return errorf(http.StatusBadRequest, codeBadRequest, "a reader token submits and runs nothing: it takes no submit_rate, submit_burst, max_live or run_max_live")
	}
	or, err := s.opsRequest(r, tok, req.DryRun)
	if err != nil {
		return err
	}
	created, err := s.ops.CreateToken(r.Context(), or, ops.TokenCreateParams{Name: req.Name, Role: req.Role,
		SubmitRate: req.SubmitRate, SubmitBurst: req.SubmitBurst, MaxLive: req.MaxLive, RunMaxLive: req.RunMaxLive})
	if errors.Is(err, store.ErrTokenExists) {
		return errorf(http.StatusConflict, codeConflict, "a token called %q exists (revoked tokens keep their names); choose another name", req.Name)
	}
	if err != nil {
		return unavailable("create token", err)
	}
	status := http.StatusCreated
	if or.DryRun {
		status = http.StatusOK
	}
	writeJSON(w, status, wire.TokenCreated{DryRun: or.DryRun, Token: tokenWire(created.Token), Secret: created.Secret})
	return nil
}

// revokeToken is DELETE /admin/v1/tokens/{name}[?dry_run=true]: the token stops working
// within api.limits.auth_cache_ttl; its submissions stay. Audited; 404 when no live token
// has the name.
func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	name := r.PathValue("name")
	return act(s, w, r, tok, action[wire.TokenRevoked]{queryOnly: true, what: "revoke token",
		notFound: "no live token called " + quoteClip(name, 110),
		do: func(or ops.Request) (wire.TokenRevoked, error) {
			c, err := s.ops.RevokeToken(r.Context(), or, name)
			return wire.TokenRevoked{DryRun: or.DryRun, Name: name, Revoked: c.Revoked, WouldRevoke: c.WouldRevoke}, err
		}})
}

func tokenWire(t *store.Token) wire.Token {
	return wire.Token{Name: t.Name, Role: t.Role, SubmitRate: t.SubmitRate, SubmitBurst: t.SubmitBurst, MaxLive: t.MaxLive,
		RunMaxLive: t.RunMaxLive, CreatedAt: t.CreatedAt, CreatedBy: t.CreatedBy, RevokedAt: t.RevokedAt}
}
