package judge0

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// writeJSON writes v as Judge0 does: JSON, <, > and & unescaped.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":"the answer could not be encoded"}` + "\n"))
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// errorBody is Judge0's {"error": "..."}.
func errorBody(msg string) map[string]string { return map[string]string{"error": msg} }

// boolParam is a Rails-style query flag: only "true" is true.
func boolParam(r *http.Request, name string) bool { return r.URL.Query().Get(name) == "true" }

// retryAfter sets Retry-After in whole seconds (at least 1).
func retryAfter(w http.ResponseWriter, secs float64) {
	n := int(secs + 0.999)
	if n < 1 {
		n = 1
	}
	w.Header().Set("Retry-After", strconv.Itoa(n))
}
