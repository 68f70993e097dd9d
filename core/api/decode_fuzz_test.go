package api

import (
	"net/http"
	"strings"
	"testing"
)

// FuzzDecodeSubmit feeds the submit body decoder arbitrary bytes: it must never panic,
// must answer 400 or 413 for anything it refuses, and what it accepts must respect the
// limits.
func FuzzDecodeSubmit(f *testing.F) {
	for _, s := range []string{
		`{"problem_id":"aplusb","language":"python3","source":"print(1)"}`,
		`{"problem_id":"aplusb","language":"cpp17","source":"int main(){}","wait_ms":5000}`,
		`{"problem_id":"a","language":"c","source":"\u0000\ud800"}`,
		`{"problem_id":1}`, `[]`, `null`, `{}`, `{"source":"x"} {}`, `{"wait_ms":-1,"problem_id":"p","language":"l","source":"s"}`,
		`{"problem_id":"p","language":"l","source":"` + strings.Repeat("x", 100) + `"}`,
	} {
		f.Add([]byte(s))
	}
	const maxSource = 64
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeSubmit(strings.NewReader(string(body)), maxSource)
		if err != nil {
			if err.status != http.StatusBadRequest && err.status != http.StatusRequestEntityTooLarge {
				t.Fatalf("status %d for a refused body", err.status)
			}
			if err.code == "" || err.msg == "" {
				t.Fatalf("error without code or message: %+v", err)
			}
			return
		}
		if req.ProblemID == "" || req.Language == "" || req.Source == "" || len(req.Source) > maxSource {
			t.Fatalf("accepted %+v", req)
		}
		if req.WaitMS != nil && *req.WaitMS < 0 {
			t.Fatalf("accepted a negative wait: %d", *req.WaitMS)
		}
	})
}
