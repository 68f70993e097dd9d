package api

import (
	"context"
	"net/http"
	"strings"
	"time"

	"oj/core/store"
)

// A face is another API on the same core: a translation of someone else's shapes onto
// oj's own paths (the Judge0 face in core/api/judge0), mounted under a prefix of this
// server. It shares the server's tokens, limits, waits and request middleware (trace
// id, log line, metrics, drain), and answers in its own shapes. The server lends it
// what follows; the face never reaches into the server otherwise.

// Mount serves h for every path under prefix ("/judge0", or "/" for the root, where the
// face answers whatever the server's own routes do not). It must be called before
// Handler.
func (s *Server) Mount(prefix string, h http.Handler) {
	s.faces = append(s.faces, mounted{prefix: strings.TrimSuffix(prefix, "/"), h: h})
}

type mounted struct {
	prefix string
	h      http.Handler
}

// mountFaces adds the mounted faces to mux; reports whether one took the root.
func (s *Server) mountFaces(mux *http.ServeMux) (root http.Handler) {
	for _, f := range s.faces {
		if f.prefix == "" {
			root = f.h
			continue
		}
		mux.Handle(f.prefix+"/", http.StripPrefix(f.prefix, f.h))
	}
	return root
}

// TokenFor resolves a token's secret as a bearer token is resolved (the same cache):
// store.ErrNotFound when it names no live token, another error when PostgreSQL cannot
// say.
func (s *Server) TokenFor(r *http.Request, secret string) (*store.Token, error) {
	tok, _ := s.auth.get(secret, s.clock.Now())
	if tok == nil {
		var err error
		tok, err = store.Authenticate(r.Context(), s.d.DB, secret)
		if err != nil {
			return nil, err
		}
		s.auth.put(secret, tok, s.clock.Now())
	}
	if info := infoFrom(r.Context()); info != nil {
		info.token = tok
	}
	return tok, nil
}

// AdmitRun takes one run from tok's runs bucket (api.limits.run_rate, run_burst): false
// and how long to wait when it is empty.
func (s *Server) AdmitRun(tok *store.Token) (bool, time.Duration) {
	ok, wait, _ := s.runBuckets.take(tok, s.clock.Now())
	return ok, wait
}

// RunBounds are the bounds a new run of tok's is stored under: the cap on runs waiting
// (api.limits.run_max_queued) and tok's bound on its runs queued or running.
func (s *Server) RunBounds(tok *store.Token) (maxQueued int64, maxLive int) {
	return s.lim.RunMaxQueued, s.runMaxLive(tok)
}

// MaxAttempts is how many attempts a new run gets (api.limits.max_attempts).
func (s *Server) MaxAttempts() int { return s.lim.MaxAttempts }

// MaxSourceBytes bounds a source (api.limits.max_source_bytes).
func (s *Server) MaxSourceBytes() int { return s.lim.MaxSourceBytes }

// WaitTerminal waits up to d for the submission or run id to end, woken by the server's
// shared LISTEN, and returns it as it then is.
func (s *Server) WaitTerminal(ctx context.Context, id string, d time.Duration) (*store.Submission, error) {
	return s.waitTerminal(ctx, id, d)
}

// NoteSubmission names the submission a request made or read, for its log line.
func (s *Server) NoteSubmission(ctx context.Context, id string) {
	if info := infoFrom(ctx); info != nil {
		info.submissionID = id
	}
}

// TraceID is the request's trace id (X-Trace-Id), to store with what it creates.
func (s *Server) TraceID(ctx context.Context) string {
	if info := infoFrom(ctx); info != nil {
		return info.traceID
	}
	return ""
}
