package api

import (
	"errors"
	"net/http"
	"strings"

	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"oj/core/store"
)

// handlerFunc is a handler behind authentication; a returned error becomes the error
// answer (an *apiError, or a 500).
type handlerFunc func(w http.ResponseWriter, r *http.Request, tok *store.Token) error

const (
	roleAdmin  = "admin"
	roleUser   = "user"
	roleReader = "reader"
)

// access is which tokens a route serves.
type access int

const (
	// anyToken: users (their own submissions), readers and admins (every submission).
	anyToken access = iota
	// submitters: users and admins — a reader token changes nothing.
	submitters
	// readers: reader and admin tokens — what a site's backend follows (the feed, the
	// problem list).
	readers
	// admins: admin tokens only.
	admins
)

// refuse is the 403 for a token the route does not serve, nil when it does.
func (a access) refuse(tok *store.Token) *apiError {
	switch {
	case a == admins && tok.Role != roleAdmin:
		return errorf(http.StatusForbidden, codeForbidden, "this route needs an admin token; %q is a %s token", tok.Name, tok.Role)
	case a == readers && tok.Role != roleAdmin && tok.Role != roleReader:
		return errorf(http.StatusForbidden, codeForbidden, "this route needs a reader or admin token; %q is a %s token", tok.Name, tok.Role)
	case a == submitters && tok.Role == roleReader:
		return errorf(http.StatusForbidden, codeForbidden, "%q is a reader token: it reads everything and changes nothing; submit with a user token", tok.Name)
	}
	return nil
}

// authed resolves the bearer token (401 when missing or bad, 503 when PostgreSQL cannot
// say), refuses a token the route does not serve with 403 (access), then refuses a query
// the route does not take (checkQuery) and a body over its limit by its Content-Length
// (limitBody).
func (s *Server) authed(who access, in routeInput, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info := infoFrom(r.Context()); info != nil {
			info.body = in.bodyLimit // how much of a body is read, even before a refusal (linger.go)
		}
		tok, err := s.authenticate(r)
		if err == nil {
			if aerr := who.refuse(tok); aerr != nil {
				err = aerr
			}
		}
		if err == nil {
			err = checkQuery(r, in)
		}
		if err == nil {
			err = limitBody(w, r, in.bodyLimit)
		}
		if err == nil {
			err = h(w, r, tok)
		}
		if err != nil {
			writeError(w, r, err)
		}
	})
}

func (s *Server) authenticate(r *http.Request) (*store.Token, error) {
	h := r.Header.Get("Authorization")
	scheme, secret, ok := strings.Cut(h, " ")
	secret = strings.TrimSpace(secret)
	if h == "" || !ok || !strings.EqualFold(scheme, "Bearer") || secret == "" {
		return nil, errorf(http.StatusUnauthorized, codeUnauthorized, "missing bearer token (Authorization: Bearer <token>)")
	}
	tok, err := s.auth.get(secret, s.clock.Now())
	if tok == nil {
		tok, err = store.Authenticate(r.Context(), s.d.DB, secret)
		if errors.Is(err, store.ErrNotFound) {
			return nil, errorf(http.StatusUnauthorized, codeUnauthorized, "unknown or revoked token")
		}
		if err != nil {
			return nil, unavailable("authenticate", err)
		}
		s.auth.put(secret, tok, s.clock.Now())
	}
	if info := infoFrom(r.Context()); info != nil {
		info.token = tok
	}
	return tok, err
}

// authCache keeps recent token lookups for a few seconds, so a burst of requests costs one
// query per token; a revoked token stops working within the TTL.
type authCache struct {
	ttl   time.Duration
	cache *lru.Cache[string, cachedToken]
}

type cachedToken struct {
	tok *store.Token
	at  time.Time
}

func newAuthCache(ttl time.Duration) *authCache {
	c, _ := lru.New[string, cachedToken](10_000)
	return &authCache{ttl: ttl, cache: c}
}

func (c *authCache) get(secret string, now time.Time) (*store.Token, error) {
	if c.ttl <= 0 {
		return nil, nil
	}
	e, ok := c.cache.Get(string(store.HashToken(secret)))
	if !ok || now.Sub(e.at) > c.ttl {
		return nil, nil
	}
	return e.tok, nil
}

func (c *authCache) put(secret string, tok *store.Token, now time.Time) {
	if c.ttl > 0 {
		c.cache.Add(string(store.HashToken(secret)), cachedToken{tok: tok, at: now})
	}
}

// canSee reports whether tok may read a submission owned by ownerID: admins see all,
// users their own (others' answer 404, so ids cannot be probed).
func canSee(tok *store.Token, ownerID *int64) bool {
	return tok.Role == roleAdmin || tok.Role == roleReader || (ownerID != nil && *ownerID == tok.ID)
}
