package judge0

import (
	"net/http"
	"slices"
)

// corsHeaders are the request headers a browser client may send: named one by one,
// since a "*" in Access-Control-Allow-Headers does not cover Authorization.
const corsHeaders = "X-Auth-Token, X-Auth-User, Authorization, Content-Type"

// cors answers preflights and marks answers for the configured origins
// (judge0.cors_allowed_origins); a request from any other origin gets no CORS headers,
// so the browser withholds the answer from its page.
func (f *Face) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		allowed := origin != "" && (slices.Contains(f.cfg.CORSAllowedOrigins, "*") ||
			slices.Contains(f.cfg.CORSAllowedOrigins, origin))
		if origin != "" {
			w.Header().Add("Vary", "Origin")
		}
		if allowed {
			w.Header().Set("Access-Control-Allow-Origin", origin)
		}
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			if allowed {
				w.Header().Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
				w.Header().Set("Access-Control-Allow-Headers", corsHeaders)
				w.Header().Set("Access-Control-Max-Age", "600")
			}
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}
