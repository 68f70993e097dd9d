package api

import (
	"net/http"

	"oj/core/store"
	"oj/core/wire"
)

// languages is GET /api/v1/languages: the configured languages, in file order.
func (s *Server) languages(w http.ResponseWriter, _ *http.Request, _ *store.Token) error {
	out := wire.Languages{Languages: []wire.Language{}}
	for _, l := range s.d.Languages.All() {
		out.Languages = append(out.Languages, wire.Language{ID: l.ID, Name: l.Name, Lane: string(l.Lane),
			SourceFile: l.SourceFile, Compiled: l.Compiled()})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
