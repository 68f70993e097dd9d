package api

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"oj/core/job"
)

func TestDecodeSubmitRefusesTextPostgreSQLCannotStore(t *testing.T) {
	const head = `{"problem_id":"aplusb","language":"python3",`
	cases := []struct {
		name, body string
		ok         bool
		mention    string
	}{
		{"NUL escape in source", head + `"source":"int main(){}\u0000"}`, false, "source: holds a NUL"},
		{"NUL escape in problem_id", `{"problem_id":"a\u0000","language":"python3","source":"x"}`, false, "problem_id: holds a NUL"},
		{"NUL escape in language", `{"problem_id":"a","language":"c\u0000","source":"x"}`, false, "language: holds a NUL"},
		{"invalid UTF-8 in source", head + "\"source\":\"print('\xff\xfe')\"}", false, "not valid UTF-8 (at byte 61)"},
		{"UTF-8-encoded surrogate", head + "\"source\":\"\xed\xa0\x80\"}", false, "not valid UTF-8"},
		{"lone high surrogate escape", head + `"source":"x\ud800y"}`, false, `\ud800 at byte`},
		{"lone low surrogate escape", head + `"source":"\uDC00"}`, false, "surrogate pair"},
		{"high surrogate then another escape", head + `"source":"\ud800\u0041"}`, false, "surrogate pair"},
		{"surrogate pair", head + `"source":"print('\ud83d\ude00')"}`, true, ""},
		{"escaped backslash before u", head + `"source":"\\ud800"}`, true, ""},
		{"raw UTF-8", head + `"source":"print('héllo, 世界')"}`, true, ""},
		{"literal replacement character", head + `"source":"\ufffd�"}`, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := decodeSubmit(strings.NewReader(c.body), 1000)
			if c.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if !utf8.ValidString(req.Source) {
					t.Fatalf("source %q", req.Source)
				}
				return
			}
			if err == nil || err.status != http.StatusBadRequest || !strings.Contains(err.msg, c.mention) {
				t.Fatalf("err = %v, want 400 mentioning %q", err, c.mention)
			}
		})
	}
}

func TestIdempotencyKeyMustBeText(t *testing.T) {
	for key, ok := range map[string]bool{
		"": true, "3f1c-key": true, "clé-été": true, strings.Repeat("k", maxIdempotencyKey): true,
		"\xff\xfe": false, "a\x7fb": false, "tab\tkey": false, strings.Repeat("k", maxIdempotencyKey+1): false,
	} {
		if err := checkIdempotencyKey(key); (err == nil) != ok {
			t.Errorf("key %q: %v, want accepted=%v", key, err, ok)
		}
	}
}

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
		"{\"problem_id\":\"p\",\"language\":\"l\",\"source\":\"\xff\"}",
		`{"problem_id":"p","language":"l","source":"\ud83d\ude00 \\udc00 \ud800"}`,
		`{"problem_id":"p\u0000","language":"l","source":"s"}`,
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
		// What is accepted reaches PostgreSQL as sent: UTF-8 text without NUL, and no
		// U+FFFD that the body did not hold itself.
		sent := bytes.Contains(body, []byte("\uFFFD")) || bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`))
		for _, v := range []string{req.ProblemID, req.Language, req.Source} {
			if !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 {
				t.Fatalf("accepted text PostgreSQL cannot store: %q", v)
			}
			if strings.ContainsRune(v, utf8.RuneError) && !sent {
				t.Fatalf("accepted a body whose text was silently replaced: %q", body)
			}
		}
	})
}

// FuzzDecodeRun: whatever the body, decodeRun refuses it with a 400 or 413 that says why,
// or accepts a run whose text PostgreSQL can store, within the bounds: a source, at most
// job.MaxRunInputs inputs of at most MaxStdinBytes together, limits not negative.
func FuzzDecodeRun(f *testing.F) {
	for _, s := range []string{
		`{"language":"python3","source":"print(input())","stdin":"1\n"}`,
		`{"language":"cpp17","source":"int main(){}","stdins":["1","2","3"],"limits":{"time_ms":1000,"memory_mb":64},"wait_ms":5000}`,
		`{"language":"c","source":"x","stdin":"a","stdins":["b"]}`,
		`{"language":"c","source":"x","stdins":[]}`,
		`{"language":"c","source":"x","stdins":["","","","","","","","","","",""]}`,
		`{"language":"c","source":"x","stdin":"\u0000"}`,
		`{"language":"c","source":"x","limits":{"time_ms":-1}}`,
		`{"language":"c","source":"x","limits":{"output_bytes":5}}`,
		`{"language":"c","source":"x","stdin":"` + strings.Repeat("y", 100) + `"}`,
		`{"language":"c","source":"x","stdin":"\ud800"}`,
		`[]`, `null`, `{}`, `{"source":"x"} {}`,
	} {
		f.Add([]byte(s))
	}
	runs := job.DefaultRunsConfig()
	runs.MaxStdinBytes = 64
	const maxSource = 64
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeRun(strings.NewReader(string(body)), maxSource, runs)
		if err != nil {
			if err.status != http.StatusBadRequest && err.status != http.StatusRequestEntityTooLarge {
				t.Fatalf("status %d for a refused body", err.status)
			}
			if err.code == "" || err.msg == "" {
				t.Fatalf("error without code or message: %+v", err)
			}
			return
		}
		if req.Language == "" || req.Source == "" || len(req.Source) > maxSource {
			t.Fatalf("accepted %+v", req)
		}
		inputs := runInputs(req)
		total := 0
		for _, in := range inputs {
			total += len(in)
		}
		if len(inputs) < 1 || len(inputs) > job.MaxRunInputs || total > runs.MaxStdinBytes {
			t.Fatalf("accepted %d inputs of %d bytes", len(inputs), total)
		}
		if l := req.Limits; l != nil && (l.TimeMS < 0 || l.MemoryMB < 0 || l.OutputBytes != 0) {
			t.Fatalf("accepted limits %+v", *l)
		}
		for _, v := range append([]string{req.Language, req.Source}, inputs...) {
			if !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 {
				t.Fatalf("accepted text PostgreSQL cannot store: %q", v)
			}
		}
	})
}
