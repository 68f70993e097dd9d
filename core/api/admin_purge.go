package api

import (
	"net/http"

	"oj/core/ops"
	"oj/core/store"
	"oj/core/wire"
)

// purge is POST /admin/v1/dlq/purge: {"ids":[…]} or {"all":true}, with dry_run. The dead
// letters are removed without a new attempt; the submissions stay dead with verdict SE
// and their error, and their history records the purge (ops.Purge). In a dry run purged
// is 0 and would_purge says how many would go.
func (s *Server) purge(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	var req wire.PurgeRequest
	return act(s, w, r, tok, action[wire.PurgeResult]{body: &req, dryRun: &req.DryRun, what: "purge",
		check: func() error { return idsOrAll(req.IDs, req.All) },
		do: func(or ops.Request) (wire.PurgeResult, error) {
			c, err := s.ops.Purge(r.Context(), or, ops.PurgeParams{IDs: req.IDs, All: req.All})
			return wire.PurgeResult{DryRun: or.DryRun, Requested: c.Requested, Purged: c.Purged,
				WouldPurge: c.WouldPurge}, err
		}})
}
