// Package spelling finds the name someone most likely meant when they typed one that does
// not exist: a problem.yaml key, an API query parameter. Every "did you mean …?" of oj
// comes from here, so they all forgive the same slips.
package spelling

import (
	"fmt"
	"strings"
)

// Nearest returns the valid name closest to a mistyped one, or "" when none is close:
// the same letters once '_', '-', spaces and case are set aside (dry-run for dry_run),
// one a prefix of the other (time_limit for time_limit_ms), or at most two edits apart.
func Nearest(typed string, valid []string) string {
	t := normal(typed)
	best, bestDist := "", 3
	for _, v := range valid {
		nv := normal(v)
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

// KeyHint is what a refusal of an unknown key says after the key: the nearest valid key
// when one is close, then the valid keys of its section (path, dotted; "" at the top):
// `did you mean "api.listen"? valid keys of api: listen, read_timeout`. ojd.yaml and
// problem.yaml refuse their unknown keys with it.
func KeyHint(path, key string, valid []string) string {
	of := "valid keys"
	if path != "" {
		of = "valid keys of " + path
	}
	hint := ""
	if s := Nearest(key, valid); s != "" {
		if path != "" {
			s = path + "." + s
		}
		hint = fmt.Sprintf("did you mean %q? ", s)
	}
	return hint + of + ": " + strings.Join(valid, ", ")
}

var separators = strings.NewReplacer("_", "", "-", "", " ", "")

func normal(s string) string { return strings.ToLower(separators.Replace(s)) }

// distance is the Levenshtein distance of two short strings (99 for long ones: a name
// that long is no slip of a valid one).
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
