// Package spelling finds, for a name that matches nothing (a misspelt key of
// problem.yaml or ojd.yaml), the valid name the writer most likely meant, so that an
// error can say "did you mean …?" instead of only "unknown".
package spelling

import "strings"

// Nearest returns the valid name closest to a mistyped one, or "" when none is close:
// the same letters without '_', '-', spaces and case, one a prefix of the other
// (time_limit for time_limit_ms), or at most two edits apart. Of equally close names
// the first in valid wins.
func Nearest(typed string, valid []string) string {
	norm := func(s string) string {
		return strings.ToLower(strings.NewReplacer("_", "", "-", "", " ", "").Replace(s))
	}
	t := norm(typed)
	best, bestDist := "", 3
	for _, v := range valid {
		nv := norm(v)
		d := distance(t, nv)
		if len(t) >= 3 && (strings.HasPrefix(nv, t) || strings.HasPrefix(t, nv)) {
			d = min(d, 1)
		}
		if d < bestDist {
			best, bestDist = v, d
		}
	}
	return best
}

// distance is the Levenshtein distance of two short strings; long ones are never near.
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
