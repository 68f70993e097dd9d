package api

import (
	"net/http"

	"oj/core/store"
	"oj/core/wire"
)

// languages is GET /api/v1/languages: the configured languages, in file order, each
// named with the version the live workers' self-checks detected (the API's own host
// need not have the toolchains), and with its commands as configured.
func (s *Server) languages(w http.ResponseWriter, r *http.Request, _ *store.Token) error {
	names, err := store.LanguageNames(r.Context(), s.d.DB, store.WorkerLiveWithin)
	if err != nil {
		return err
	}
	out := wire.Languages{Languages: []wire.Language{}}
	for _, l := range s.d.Languages.All() {
		compile := l.Compile
		if compile == nil {
			compile = []string{}
		}
		name, detected := names[l.ID]
		if !detected {
			name = l.DisplayName("")
		}
		out.Languages = append(out.Languages, wire.Language{ID: l.ID, Name: name, Detected: detected,
			Lane: string(l.Lane), SourceFile: l.SourceFile, Compiled: l.Compiled(),
			Compile: compile, Run: l.Run, TimeFactor: l.TimeFactor, MemoryFactor: l.MemoryFactor})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
