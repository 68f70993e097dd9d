package main

import (
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"oj/core/wire"
)

// lines splits stdout into its lines, failing unless it ends with a newline.
func lines(t *testing.T, r result) []string {
	t.Helper()
	if !strings.HasSuffix(r.stdout, "\n") {
		t.Fatalf("stdout does not end with a newline\n%s", r)
	}
	return strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
}

// errorOf parses stdout as exactly one line holding an error object, and checks that
// nothing went to stderr.
func errorOf(t *testing.T, r result) errorJSON {
	t.Helper()
	ls := lines(t, r)
	if len(ls) != 1 || r.stderr != "" {
		t.Fatalf("want one JSON line on stdout and nothing on stderr\n%s", r)
	}
	var ej errorJSON
	dec := json.NewDecoder(strings.NewReader(ls[0]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ej); err != nil || ej.Error.Code == "" || ej.Error.Message == "" {
		t.Fatalf("not an error object (%v): %s", err, ls[0])
	}
	return ej
}

// With -o json every error is one JSON object on stdout, the exit code unchanged: the
// server's code and status when it answered, ojctl's own code otherwise.
func TestJSONErrorsAreJSONOnStdout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	user := e.userToken

	r := e.exec(run{args: []string{"overview", "-o", "json"}, token: &user})
	wantCode(t, r, 1)
	ej := errorOf(t, r)
	if ej.Error.Code != "forbidden" || ej.Error.Status != 403 || ej.Error.Server != e.url ||
		!strings.Contains(ej.Error.Message, "admin token") || !strings.Contains(ej.Error.Hint, "--role admin") || ej.Time != "" {
		t.Fatalf("403 as JSON = %+v", ej)
	}

	bad := ""
	r = e.exec(run{args: []string{"dlq", "ls", "-o", "json"}, token: &bad})
	wantCode(t, r, 1)
	if ej := errorOf(t, r); ej.Error.Code != "unauthorized" || ej.Error.Status != 401 || !strings.Contains(ej.Error.Hint, "ojd token create") {
		t.Fatalf("401 as JSON = %+v", ej)
	}

	r = e.ojctl("-o", "json", "overview", "--nosuchflag")
	wantCode(t, r, 2)
	if ej := errorOf(t, r); ej.Error.Code != "usage" || ej.Error.Status != 0 || !strings.Contains(ej.Error.Message, "nosuchflag") {
		t.Fatalf("bad flag as JSON = %+v", ej)
	}

	r = e.ojctl("dlq", "replay", "--all", "-o", "json")
	wantCode(t, r, 2)
	if ej := errorOf(t, r); ej.Error.Code != "refused" || !strings.Contains(ej.Error.Message, "--yes") {
		t.Fatalf("refusal as JSON = %+v", ej)
	}

	r = e.ojctl("cancel", "00000000-0000-0000-0000-000000000000", "--yes", "-o", "json")
	wantCode(t, r, 1)
	if ej := errorOf(t, r); ej.Error.Status != 404 || ej.Error.Code != "not_found" {
		t.Fatalf("404 as JSON = %+v", ej)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	r = e.exec(run{args: []string{"overview", "-o", "json"}, server: dead})
	wantCode(t, r, 1)
	if ej := errorOf(t, r); ej.Error.Code != "unreachable" || ej.Error.Server != dead || !strings.Contains(ej.Error.Message, "cannot reach") {
		t.Fatalf("unreachable as JSON = %+v", ej)
	}

	// A table keeps the error on stderr and stdout empty.
	r = e.exec(run{args: []string{"overview"}, token: &user})
	wantCode(t, r, 1)
	if r.stdout != "" || !strings.HasPrefix(r.stderr, "ojctl: ") {
		t.Fatalf("table error\n%s", r)
	}
}

// -o json is one document on one line.
func TestJSONIsOneLine(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, args := range [][]string{{"overview"}, {"workers"}, {"languages"}, {"trim", "--safe", "--dry-run"}} {
		r := e.ojctl(append(args, "-o", "json")...)
		wantCode(t, r, 0)
		if ls := lines(t, r); len(ls) != 1 || !json.Valid([]byte(ls[0])) {
			t.Fatalf("%v -o json: want one line of JSON\n%s", args, r)
		}
	}
}

// stamped parses one -o jsonl line: an object whose first field is an RFC 3339 "time".
func stamped(t *testing.T, line string) map[string]any {
	t.Helper()
	if !strings.HasPrefix(line, `{"time":"`) {
		t.Fatalf("line does not start with its time: %s", line)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("line is not JSON (%v): %s", err, line)
	}
	ts, _ := m["time"].(string)
	if _, err := time.Parse(time.RFC3339, ts); err != nil {
		t.Fatalf("time %q is not RFC 3339: %v", ts, err)
	}
	return m
}

// -o jsonl: a list is one line per item, any other answer one line, an error one line;
// every line an object stamped with the time.
func TestJSONLinesStampEachLine(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dead := e.deadLetter()

	r := e.ojctl("dlq", "ls", "-o", "jsonl")
	wantCode(t, r, 0)
	ls := lines(t, r)
	if len(ls) != 1 || stamped(t, ls[0])["submission_id"] != dead {
		t.Fatalf("dlq ls -o jsonl: want one line for the dead letter\n%s", r)
	}

	r = e.ojctl("languages", "-o", "jsonl")
	wantCode(t, r, 0)
	var langs wire.Languages
	decode(t, e.ojctl("languages", "-o", "json"), &langs)
	ls = lines(t, r)
	if len(ls) != len(langs.Languages) || len(ls) < 2 {
		t.Fatalf("languages -o jsonl: %d lines for %d languages\n%s", len(ls), len(langs.Languages), r)
	}
	for i, l := range ls {
		if stamped(t, l)["id"] != langs.Languages[i].ID {
			t.Fatalf("line %d is not language %s: %s", i, langs.Languages[i].ID, l)
		}
	}

	// One result: one line, with the answer's fields.
	r = e.ojctl("overview", "-o", "jsonl")
	wantCode(t, r, 0)
	if ls := lines(t, r); len(ls) != 1 || stamped(t, ls[0])["lanes"] == nil {
		t.Fatalf("overview -o jsonl: want one line\n%s", r)
	}
	r = e.ojctl("dlq", "replay", "--all", "--dry-run", "-o", "jsonl")
	wantCode(t, r, 0)
	if ls := lines(t, r); len(ls) != 1 || stamped(t, ls[0])["would_replay"] != float64(1) {
		t.Fatalf("dry replay -o jsonl: want one line\n%s", r)
	}

	// Asked for two, one replayed: the answer's line, then the error's.
	r = e.ojctl("dlq", "replay", dead, "00000000-0000-0000-0000-000000000000", "--yes", "-o", "jsonl")
	wantCode(t, r, 3)
	ls = lines(t, r)
	if len(ls) != 2 || stamped(t, ls[0])["replayed"] != float64(1) {
		t.Fatalf("partial replay -o jsonl: want the answer and the error\n%s", r)
	}
	if ej, _ := stamped(t, ls[1])["error"].(map[string]any); ej["code"] != "partly_done" {
		t.Fatalf("second line is not the partly-done error: %s", ls[1])
	}

	user := e.userToken
	r = e.exec(run{args: []string{"pel", "-o", "jsonl"}, token: &user})
	wantCode(t, r, 1)
	if ej := errorOf(t, r); ej.Time == "" || ej.Error.Status != 403 {
		t.Fatalf("403 -o jsonl = %+v", ej)
	}

	r = e.ojctl("overview", "-o", "yaml")
	wantCode(t, r, 2)
	wantIn(t, "stderr", r.stderr, "want table, json or jsonl")
}
