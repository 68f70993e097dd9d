package api

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Caller metadata: a site's own tags on a submission (its user, contest, round), stored
// and echoed wherever the submission appears, and a filter of the lists and the feed.
const (
	maxMetaKeys  = 16
	maxMetaValue = 256
	// metaPrefix starts a query parameter that filters by metadata: meta.KEY=VALUE.
	metaPrefix = "meta."
)

var metaKey = regexp.MustCompile(`^[a-z0-9_.-]{1,64}$`)

// checkMetadata refuses metadata of the wrong shape with a 400 that names the key.
func checkMetadata(m map[string]string) *apiError {
	if len(m) > maxMetaKeys {
		return errorf(http.StatusBadRequest, codeBadRequest, "metadata: %d keys, at most %d", len(m), maxMetaKeys)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the first bad key, the same every time
	for _, k := range keys {
		if aerr := checkMetaPair(k, m[k]); aerr != nil {
			return aerr
		}
	}
	return nil
}

func checkMetaPair(k, v string) *apiError {
	if !metaKey.MatchString(k) {
		return errorf(http.StatusBadRequest, codeBadRequest, "metadata key %q: want 1-64 of a-z, 0-9, _, . and -", quoteClip(k, 70))
	}
	switch {
	case len(v) > maxMetaValue:
		return errorf(http.StatusBadRequest, codeBadRequest, "metadata %q: the value is %d bytes, at most %d", k, len(v), maxMetaValue)
	case !utf8.ValidString(v):
		return errorf(http.StatusBadRequest, codeBadRequest, "metadata %q: the value is not UTF-8", k)
	case strings.IndexFunc(v, unicode.IsControl) >= 0:
		return errorf(http.StatusBadRequest, codeBadRequest, "metadata %q: the value holds a control character", k)
	}
	return nil
}

// metaFilter reads the meta.KEY=VALUE parameters of a query (checkQuery has already
// made sure each is given once), nil when there are none.
func metaFilter(r *http.Request) (map[string]string, *apiError) {
	var out map[string]string
	for name, vals := range r.URL.Query() {
		k, ok := strings.CutPrefix(name, metaPrefix)
		if !ok {
			continue
		}
		if aerr := checkMetaPair(k, vals[0]); aerr != nil {
			return nil, aerr
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = vals[0]
	}
	if len(out) > maxMetaKeys {
		return nil, errorf(http.StatusBadRequest, codeBadRequest, "meta.*: %d filters, at most %d", len(out), maxMetaKeys)
	}
	return out, nil
}

// nonNilMeta is m, or an empty map: answers carry {} rather than null.
func nonNilMeta(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
