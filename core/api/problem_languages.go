package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"oj/core/judge/problem"
	"oj/core/judge/problem/formats"
	"oj/core/store"
)

// codeLanguageNotAllowed refuses a submit in a language the problem does not allow.
const codeLanguageNotAllowed = "language_not_allowed"

// checkPackageLanguages holds a package's language rules to this judge's languages at
// upload: an id of oj's own format that the judge does not configure is the package's
// mistake (400 naming problem.yaml and the key). A Kattis package's codes map onto oj's
// fixed ids, some of which a deployment may leave out; it is refused only when none of
// the languages it allows is configured, since nothing could then be judged.
func (s *Server) checkPackageLanguages(im *formats.Imported) *apiError {
	spec := im.Package.Spec
	configured := s.d.Languages.IDs()
	if im.Import.Format == "oj" {
		for _, id := range spec.Languages {
			if !slices.Contains(configured, id) {
				return badLanguages("languages: %q is not a language of this judge (its languages: %s)", id, strings.Join(configured, ", "))
			}
		}
		for _, id := range spec.FactorLanguages() {
			if !slices.Contains(configured, id) {
				return badLanguages("time_factors.%s: %q is not a language of this judge (its languages: %s)", id, id, strings.Join(configured, ", "))
			}
		}
	}
	if len(spec.Languages) > 0 && !slices.ContainsFunc(spec.Languages, func(id string) bool { return slices.Contains(configured, id) }) {
		return badLanguages("languages: none of %s is a language of this judge, so no submission could be judged (its languages: %s)",
			strings.Join(spec.Languages, ", "), strings.Join(configured, ", "))
	}
	return nil
}

// badLanguages is a package's language rule this judge cannot keep, as the package
// reader words its refusals.
func badLanguages(format string, args ...any) *apiError {
	e := &problem.InvalidError{Reason: problem.ErrBadLanguages, Name: "problem.yaml", Detail: fmt.Sprintf(format, args...)}
	return errorf(http.StatusBadRequest, codeInvalidPackage, "%s", e.Error())
}

// languagesMeta adds a new version's language rules to its meta: the allowed languages
// ([] for every language) and the time factors ({} for none).
func languagesMeta(meta map[string]any, spec problem.Spec) {
	langs := spec.Languages
	if langs == nil {
		langs = []string{}
	}
	factors := map[string]float64{}
	for id, f := range spec.TimeFactors {
		factors[id] = f
	}
	meta["languages"], meta["time_factors"] = langs, factors
}

// metaLanguages reads a version's allowed languages back (nil: every language, also
// for a version recorded before problems had language rules).
func metaLanguages(meta map[string]any) []string {
	raw, _ := meta["languages"].([]any)
	var out []string
	for _, x := range raw {
		if id, ok := x.(string); ok {
			out = append(out, id)
		}
	}
	return out
}

// metaTimeFactors reads a version's per-language time factors back.
func metaTimeFactors(meta map[string]any) map[string]float64 {
	raw, _ := meta["time_factors"].(map[string]any)
	out := make(map[string]float64, len(raw))
	for id, x := range raw {
		if f, ok := x.(float64); ok && f > 0 {
			out[id] = f
		}
	}
	return out
}

// metaTimeFactor is a version's own time factor for a language (1 when it gives none).
func metaTimeFactor(meta map[string]any, id string) float64 {
	if f, ok := metaTimeFactors(meta)[id]; ok {
		return f
	}
	return 1
}

// languageAllowed refuses a submit to pv in language id when pv's package restricts
// its languages and id is not among them; the message names the allowed ones.
func (s *Server) languageAllowed(pv *store.ProblemVersion, id string) *apiError {
	allowed := metaLanguages(pv.Meta)
	if len(allowed) == 0 || slices.Contains(allowed, id) {
		return nil
	}
	s.metrics.submits.WithLabelValues("rejected").Inc()
	return errorf(http.StatusBadRequest, codeLanguageNotAllowed, "problem %s does not accept %s: its languages are %s",
		pv.ProblemID, id, strings.Join(allowed, ", "))
}
