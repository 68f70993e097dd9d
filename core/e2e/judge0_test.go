package e2e_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	judge0pkg "oj/core/judge0"
)

const (
	j0CppAB   = "#include <cstdio>\nint main(){long a,b; if(scanf(\"%ld %ld\",&a,&b)!=2) return 2; printf(\"%ld\\n\",a+b);}\n"
	j0CppLoop = "int main(){ volatile unsigned long x=0; for(;;) x++; }\n"
	j0CppSegv = "#include <cstdio>\nint main(){ volatile int *p = nullptr; *p = 1; }\n"
	j0PyAB    = "a, b = map(int, input().split())\nprint(a + b)\n"
	j0PyLoop  = "while True:\n    pass\n"
	j0PyRE    = "import sys\nprint('partial')\nraise SystemExit(3)\n"
)

// The Judge0 face on the real stack: C++ (ids 54 and 105) and Python (71 and 100) judged
// Accepted, Wrong Answer, Time Limit Exceeded, Compilation Error and runtime errors, by
// wait=true and by polling.
func judge0Verdicts(t *testing.T, s *system) {
	c := judge0On(t, s, nil)
	type want struct {
		name   string
		sub    map[string]any
		status int
	}
	cases := []want{
		{"cpp 54 accepted", map[string]any{"language_id": 54, "source_code": j0CppAB, "stdin": "2 40", "expected_output": "42"}, 3},
		{"cpp 105 accepted, trailing blanks forgiven", map[string]any{"language_id": 105, "source_code": j0CppAB, "stdin": "1 1\n", "expected_output": "2  \n\n"}, 3},
		{"cpp wrong answer", map[string]any{"language_id": 54, "source_code": j0CppAB, "stdin": "2 2", "expected_output": "5"}, 4},
		{"cpp time limit", map[string]any{"language_id": 54, "source_code": j0CppLoop, "cpu_time_limit": 0.5, "wall_time_limit": 15}, 5},
		{"cpp compilation error", map[string]any{"language_id": 76, "source_code": "int main( {"}, 6},
		{"cpp segfault", map[string]any{"language_id": 54, "source_code": j0CppSegv}, 7},
		{"python 71 accepted", map[string]any{"language_id": 71, "source_code": j0PyAB, "stdin": "3 4", "expected_output": "7\n"}, 3},
		{"python 100 no expected output", map[string]any{"language_id": 100, "source_code": "print(9)"}, 3},
		{"python wrong answer, leading blank counts", map[string]any{"language_id": 92, "source_code": "print(' 7')", "expected_output": "7"}, 4},
		{"python time limit", map[string]any{"language_id": 71, "source_code": j0PyLoop, "cpu_time_limit": 0.5, "wall_time_limit": 15}, 5},
		{"python runtime error", map[string]any{"language_id": 71, "source_code": j0PyRE}, 11},
	}
	tokens := make([]string, len(cases))
	for i, cs := range cases {
		tokens[i] = c.create("", cs.sub)
	}
	for i, cs := range cases {
		m := c.wait(tokens[i], "?fields=*")
		if got := statusID(m); got != cs.status {
			t.Errorf("%s: status %d, want %d: %v", cs.name, got, cs.status, m)
		}
		if m["token"] != tokens[i] || m["language_id"].(float64) != float64(cs.sub["language_id"].(int)) {
			t.Errorf("%s: token or language_id not as posted: %v", cs.name, m)
		}
	}
	ac := c.wait(tokens[0], "")
	if ac["stdout"] != "42\n" || ac["compile_output"] != nil || ac["message"] != nil {
		t.Errorf("accepted C++: %v", ac)
	}
	if tm, ok := ac["time"].(string); !ok || !strings.Contains(tm, ".") {
		t.Errorf("time is a string of seconds: %v", ac["time"])
	}
	if mem, ok := ac["memory"].(float64); !ok || mem <= 0 {
		t.Errorf("memory in KB: %v", ac["memory"])
	}
	if tle := c.wait(tokens[3], "?fields=status,message,time,exit_signal"); !strings.HasPrefix(fmt.Sprint(tle["message"]), "Time limit exceeded") {
		t.Errorf("TLE message: %v", tle)
	}
	ce := c.wait(tokens[4], "")
	if !strings.Contains(fmt.Sprint(ce["compile_output"]), "error") || ce["stdout"] != nil {
		t.Errorf("compile error: %v", ce)
	}
	re := c.wait(tokens[10], "?fields=stdout,exit_code,exit_signal,message,status_id")
	if re["stdout"] != "partial\n" || re["exit_code"].(float64) != 3 || re["message"] != "Exited with error status 3" {
		t.Errorf("runtime error: %v", re)
	}
	segv := c.wait(tokens[5], "?fields=exit_signal,message")
	if segv["exit_signal"].(float64) != 11 {
		t.Errorf("segfault: %v", segv)
	}

	// wait=true answers the ended submission itself, 201, with the fields asked for.
	code, _, b := c.do("POST", "/submissions?wait=true&fields=stdout,status_id,token", map[string]any{
		"language_id": 71, "source_code": j0PyAB, "stdin": "20 22", "expected_output": "42"}, as(c.user)...)
	if m := object(t, b); code != http.StatusCreated || statusID(m) != 3 || m["stdout"] != "42\n" || len(m) != 3 {
		t.Errorf("wait=true: %d %s", code, b)
	}
}

// Base64 both ways: a program writing bytes that are not UTF-8 is read back exactly
// with base64_encoded=true and refused without it, as Judge0 refuses it.
func judge0Base64(t *testing.T, s *system) {
	c := judge0On(t, s, nil)
	src := "import sys\nsys.stdout.buffer.write(bytes([0xff, 0xfe, 0, 0x80]) + sys.stdin.buffer.read())\n"
	enc := func(x string) string { return base64.StdEncoding.EncodeToString([]byte(x)) }
	token := c.create("?base64_encoded=true", map[string]any{"language_id": 71, "source_code": enc(src), "stdin": enc("\x01\xc3")})
	m := c.wait(token, "?base64_encoded=true&fields=stdout,stdin,source_code,status_id")
	out, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(m["stdout"].(string), "\n", ""))
	if err != nil || string(out) != "\xff\xfe\x00\x80\x01\xc3" {
		t.Fatalf("stdout round trip: %q %v (%v)", out, err, m)
	}
	if judge0pkg.Decode(m["source_code"].(string)) != src || judge0pkg.Decode(m["stdin"].(string)) != "\x01\xc3" {
		t.Fatalf("source and stdin round trip: %v", m)
	}
	code, _, b := c.do("GET", "/submissions/"+token+"?base64_encoded=false", nil, as(c.user)...)
	if code != http.StatusBadRequest || !strings.Contains(string(b), "cannot be converted to UTF-8, use base64_encoded=true") {
		t.Fatalf("non-UTF-8 without base64: %d %s", code, b)
	}
}

// Batches: twenty at once, read back in one GET in the order asked (null for a token no
// submission has), more than twenty refused as Judge0 refuses them, and an element that
// fails validation answering its errors in its place.
func judge0Batch(t *testing.T, s *system) {
	c := judge0On(t, s, nil)
	var subs []map[string]any
	for i := 0; i < 20; i++ {
		subs = append(subs, map[string]any{"language_id": 71, "source_code": j0PyAB,
			"stdin": fmt.Sprintf("%d %d", i, i), "expected_output": fmt.Sprint(2 * i)})
	}
	code, _, b := c.do("POST", "/submissions/batch", map[string]any{"submissions": subs}, as(c.user)...)
	var created []map[string]any
	if err := json.Unmarshal(b, &created); code != http.StatusCreated || err != nil || len(created) != 20 {
		t.Fatalf("batch of 20: %d %s", code, b)
	}
	tokens := make([]string, 20)
	for i, cr := range created {
		tokens[i] = cr["token"].(string)
	}
	for _, tok := range tokens {
		c.wait(tok, "?fields=status_id")
	}
	code, _, b = c.do("GET", "/submissions/batch?fields=token,status_id,stdout&tokens="+strings.Join(tokens, ","), nil, as(c.user)...)
	var got struct{ Submissions []map[string]any }
	if err := json.Unmarshal(b, &got); code != 200 || err != nil || len(got.Submissions) != 20 {
		t.Fatalf("batch read: %d %s", code, b)
	}
	for i, m := range got.Submissions {
		if m["token"] != tokens[i] || statusID(m) != 3 || m["stdout"] != fmt.Sprintf("%d\n", 2*i) {
			t.Errorf("batch element %d: %v", i, m)
		}
	}
	code, _, b = c.do("GET", "/submissions/batch?tokens="+tokens[0]+",no-such-token", nil, as(c.user)...)
	if code != 200 || !strings.HasSuffix(strings.TrimSpace(string(b)), ",null]}") {
		t.Errorf("unknown token in a batch: %d %s", code, b)
	}
	code, _, b = c.do("POST", "/submissions/batch", map[string]any{"submissions": append(subs, subs[0])}, as(c.user)...)
	if code != 400 || !strings.Contains(string(b), `"number of submissions in a batch should be less than or equal to 20"`) {
		t.Errorf("batch of 21: %d %s", code, b)
	}
	code, _, b = c.do("GET", "/submissions/batch?tokens="+strings.Repeat("x,", 21), nil, as(c.user)...)
	if code != 400 {
		t.Errorf("batch read of 21: %d %s", code, b)
	}
	code, _, b = c.do("POST", "/submissions/batch", map[string]any{"submissions": []any{subs[0],
		map[string]any{"language_id": 44, "source_code": "x"}}}, as(c.user)...)
	if code != http.StatusCreated || !strings.Contains(string(b), `{"language_id":["language with id 44 doesn't exist"]}`) {
		t.Errorf("batch with an invalid element: %d %s", code, b)
	}
}
