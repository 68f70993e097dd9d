package problems

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"oj/core/wire"
)

// RenderLanguages is the line of the detail pane that says which languages a problem
// accepts, with the time factors its package gives per language.
func RenderLanguages(p *wire.Problem) string {
	out := "languages: any"
	if len(p.Languages) > 0 {
		out = "languages: " + strings.Join(p.Languages, ", ")
	}
	if len(p.TimeFactors) == 0 {
		return out
	}
	var parts []string
	for _, id := range slices.Sorted(maps.Keys(p.TimeFactors)) {
		parts = append(parts, id+" × "+strconv.FormatFloat(p.TimeFactors[id], 'g', -1, 64))
	}
	return out + " (time: " + strings.Join(parts, ", ") + ")"
}
