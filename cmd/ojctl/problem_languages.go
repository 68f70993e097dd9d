package main

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"oj/core/wire"
)

// problemLanguages says which languages a problem accepts and the time factor it gives
// any of them: "cpp17, python3 (python3: time × 2)", or "any" when the package sets no
// rule.
func problemLanguages(pr *wire.Problem) string {
	out := "any"
	if len(pr.Languages) > 0 {
		out = strings.Join(pr.Languages, ", ")
	}
	if len(pr.TimeFactors) == 0 {
		return out
	}
	return out + " (" + timeFactors(pr.TimeFactors) + ")"
}

// timeFactors lists a problem's per-language time factors, in id order.
func timeFactors(f map[string]float64) string {
	ids := slices.Sorted(maps.Keys(f))
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = id + ": time × " + strconv.FormatFloat(f[id], 'g', -1, 64)
	}
	return strings.Join(parts, ", ")
}
