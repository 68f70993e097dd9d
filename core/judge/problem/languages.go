package problem

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// A problem may restrict the languages a submission is in (languages) and scale the
// time limit per language (time_factors). Both name oj's language ids; which of them a
// judge configures is the API's to check at upload, since a package is read before it
// knows the judge it goes to.

// Bounds of the language rules.
const (
	maxLanguages  = 64
	minTimeFactor = 0.1
	maxTimeFactor = 10.0
)

// languageID is what a language id may look like (languages.yaml's ids: c11, cpp17,
// java17, python3, …).
var languageID = regexp.MustCompile(`^[a-z0-9][a-z0-9_.+-]{0,31}$`)

// checkLanguages checks languages and time_factors: well-formed ids, each once, and
// factors in range; a factor for a language the problem does not allow is a mistake.
func (s *Spec) checkLanguages(lines lineMap) error {
	if len(s.Languages) > maxLanguages {
		return specError(ErrBadLanguages, lines.at("languages"), "languages: %d, at most %d", len(s.Languages), maxLanguages)
	}
	seen := map[string]bool{}
	for i, id := range s.Languages {
		at := lines.at(fmt.Sprintf("languages[%d]", i))
		if !languageID.MatchString(id) {
			return specError(ErrBadLanguages, at, "languages: %q is not a language id (such as cpp17 or python3)", clip(id, 40))
		}
		if seen[id] {
			return specError(ErrBadLanguages, at, "languages: %s is listed twice", id)
		}
		seen[id] = true
	}
	if len(s.TimeFactors) > maxLanguages {
		return specError(ErrBadLanguages, lines.at("time_factors"), "time_factors: %d languages, at most %d", len(s.TimeFactors), maxLanguages)
	}
	for _, id := range s.FactorLanguages() {
		f := s.TimeFactors[id]
		at := lines.at("time_factors." + id)
		switch {
		case !languageID.MatchString(id):
			return specError(ErrBadLanguages, at, "time_factors: %q is not a language id (such as cpp17 or python3)", clip(id, 40))
		case !(f >= minTimeFactor && f <= maxTimeFactor):
			return specError(ErrBadLanguages, at, "time_factors.%s: %v is out of range: want a number in [%g, %g]", id, f, minTimeFactor, maxTimeFactor)
		case len(s.Languages) > 0 && !seen[id]:
			return specError(ErrBadLanguages, at, "time_factors.%s: %s is not among languages (%s)", id, id, strings.Join(s.Languages, ", "))
		}
	}
	return nil
}

// AllowsLanguage reports whether a submission in language id may be judged: every
// language when the problem lists none.
func (s Spec) AllowsLanguage(id string) bool {
	return len(s.Languages) == 0 || slices.Contains(s.Languages, id)
}

// TimeFactor is the problem's own factor on its time limit for language id (1 when
// it gives none).
func (s Spec) TimeFactor(id string) float64 {
	if f, ok := s.TimeFactors[id]; ok && f > 0 {
		return f
	}
	return 1
}

// FactorLanguages are the languages time_factors names, sorted.
func (s Spec) FactorLanguages() []string {
	ids := make([]string, 0, len(s.TimeFactors))
	for id := range s.TimeFactors {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// LanguageIDs are every language id the rules name (languages and time_factors), each
// once, sorted: what the API checks against the judge's languages at upload.
func (s Spec) LanguageIDs() []string {
	ids := append(slices.Clone(s.Languages), s.FactorLanguages()...)
	slices.Sort(ids)
	return slices.Compact(ids)
}
