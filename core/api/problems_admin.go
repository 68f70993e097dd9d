package api

import (
	"fmt"
	"net/http"

	"oj/core/ops"
	"oj/core/store"
	"oj/core/wire"
)

// listProblems is GET /api/v1/problems?archived=all|false|true (admin): every problem
// with its latest version and submission count, ordered by id. Archived problems are
// listed too unless archived=false; archived=true lists only them.
func (s *Server) listProblems(w http.ResponseWriter, r *http.Request, _ *store.Token) error {
	filter := store.AllProblems
	switch v := r.URL.Query().Get("archived"); v {
	case "", "all":
	case "false":
		filter = store.LiveProblems
	case "true":
		filter = store.ArchivedProblems
	default:
		return errorf(http.StatusBadRequest, codeBadRequest, "archived: %q (want all, true or false)", v)
	}
	rows, err := store.ListProblems(r.Context(), s.d.DB, filter)
	if err != nil {
		return unavailable("list problems", err)
	}
	out := wire.ProblemList{Items: make([]wire.ProblemSummary, 0, len(rows))}
	for _, p := range rows {
		item := wire.ProblemSummary{ID: p.ID, Title: p.Title, Version: p.Version, SHA256: p.SHA256,
			CaseCount: p.CaseCount, Submissions: p.Submissions, Archived: p.ArchivedAt != nil, ArchivedAt: p.ArchivedAt,
			CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, TimeLimitMS: p.TimeLimitMS, MemoryLimitMB: p.MemoryLimitMB,
			Format: p.Format, TimeLimitProvisional: p.TimeLimitProvisional}
		if item.Format == "" {
			item.Format = "oj"
		}
		if p.VerifyState != "" {
			item.Verify = &wire.ProblemVerifyState{State: p.VerifyState, Summary: p.VerifySummary}
		}
		if p.VerifyState == store.VerifyRunning {
			// A verification whose submissions all ended is decided when it is read.
			item = s.settleListed(r, item)
		}
		out.Items = append(out.Items, item)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// settleListed decides item's running verification if its submissions have all ended
// (settleVerification), and shows what it became: its state, and the limit it derived.
func (s *Server) settleListed(r *http.Request, item wire.ProblemSummary) wire.ProblemSummary {
	pv, err := store.ProblemVersionAt(r.Context(), s.d.DB, item.ID, item.Version)
	if err != nil {
		return item
	}
	v, err := s.settleVerification(r.Context(), pv)
	if err != nil || v.State == store.VerifyRunning {
		return item
	}
	item.Verify = &wire.ProblemVerifyState{State: v.State, Summary: v.Summary}
	if again, err := store.ProblemVersionAt(r.Context(), s.d.DB, item.ID, item.Version); err == nil {
		item.TimeLimitMS = again.TimeLimitMS
		item.TimeLimitProvisional, _ = again.Meta["time_limit_provisional"].(bool)
	}
	return item
}

// removeProblem is DELETE /api/v1/problems/{id}[?dry_run=true] (admin, audited): a
// problem with submissions is archived (new submissions and GET /api/v1/problems/{id}
// answer 404 as for an unknown problem; its submissions keep judging and can be
// rejudged; an upload brings it back), one without is deleted (ops.RemoveProblem).
func (s *Server) removeProblem(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	id := r.PathValue("id")
	// A DELETE that misspelt its dry run must not delete: opsRequest parses it strictly.
	return act(s, w, r, tok, action[wire.ProblemRemoved]{queryOnly: true, check: problemIn(id), what: "remove problem",
		notFound: fmt.Sprintf("unknown problem %q", id),
		do: func(or ops.Request) (wire.ProblemRemoved, error) {
			c, err := s.ops.RemoveProblem(r.Context(), or, id)
			return wire.ProblemRemoved{DryRun: or.DryRun, ID: id, Action: c.Action, Submissions: c.Submissions}, err
		}})
}
