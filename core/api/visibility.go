package api

import (
	"context"

	"oj/core/render"
	"oj/core/store"
	"oj/core/wire"
)

// What a viewer sees of a submission and its cases is core/render's rule (hidden tests
// stay hidden; admins see everything), shared with the dispatcher's webhooks. Every
// answer that carries cases goes through a caseView.

// caseView is what one viewer may see of the cases of one submission.
type caseView = render.View

// caseViewOf is what tok may see of sub's cases. The problem version's samples are read
// once per version (a version never changes) and kept in views.
func (s *Server) caseViewOf(ctx context.Context, tok *store.Token, sub *store.Submission) (caseView, error) {
	return s.views.View(ctx, s.d.DB, isAdmin(tok), sub)
}

// isAdmin reports whether tok sees what only admins see.
func isAdmin(tok *store.Token) bool { return tok != nil && tok.Role == roleAdmin }

// toWire is a submission as the API shows it to tok (render.Submission).
func toWire(sub *store.Submission, tok *store.Token, view caseView) wire.Submission {
	return render.Submission(sub, isAdmin(tok), view)
}
