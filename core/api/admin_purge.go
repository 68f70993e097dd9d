package api

import (
	"net/http"

	"oj/core/job"
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
	if err := decodeAdmin(w, r, &req); err != nil {
		return err
	}
	if req.All == (len(req.IDs) > 0) {
		return errorf(http.StatusBadRequest, codeBadRequest, `give either "ids" or "all": true`)
	}
	for _, id := range req.IDs {
		if !job.IsSubmissionID(id) {
			return errorf(http.StatusBadRequest, codeBadRequest, "ids: %q is not a submission id (36 characters, lowercase hex and hyphens)", quoteClip(id, 60))
		}
	}
	or, err := s.opsRequest(r, tok, req.DryRun)
	if err != nil {
		return err
	}
	c, err := s.ops.Purge(r.Context(), or, ops.PurgeParams{IDs: req.IDs, All: req.All})
	if err != nil {
		return unavailable("purge", err)
	}
	writeJSON(w, http.StatusOK, wire.PurgeResult{DryRun: or.DryRun, Requested: c.Requested, Purged: c.Purged,
		WouldPurge: c.WouldPurge})
	return nil
}
