package e2e_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	j0api "oj/core/api/judge0"
)

// What Judge0 refuses with 422 {field: [messages]}, and what oj refuses besides (the
// network, compiler options off the allow-list, arguments bash would refuse).
func judge0Refusals(t *testing.T, s *system) {
	c := judge0On(t, s, nil)
	for _, cs := range []struct {
		name string
		sub  map[string]any
		want string
	}{
		{"blank", map[string]any{}, `{"source_code":["can't be blank"],"language_id":["can't be blank"]}`},
		{"unknown language", map[string]any{"language_id": 44, "source_code": "x"}, `{"language_id":["language with id 44 doesn't exist"]}`},
		{"limits over the maxima", map[string]any{"language_id": 71, "source_code": "x", "cpu_time_limit": 1000, "memory_limit": 99999999, "number_of_runs": 21, "max_file_size": 0},
			`{"cpu_time_limit":["must be less than or equal to 10.0"],"memory_limit":["must be less than or equal to 1048576"],"max_file_size":["must be greater than 0"],"number_of_runs":["must be less than or equal to 20"]}`},
		{"not a number", map[string]any{"language_id": 71, "source_code": "x", "memory_limit": "lots"}, `{"memory_limit":["is not a number"]}`},
		{"network", map[string]any{"language_id": 71, "source_code": "x", "enable_network": true}, `{"enable_network":["enabling network is not allowed (oj never gives a program the network)"]}`},
		{"per-process limits", map[string]any{"language_id": 71, "source_code": "x", "enable_per_process_and_thread_time_limit": true}, `{"enable_per_process_and_thread_time_limit":["this option cannot be enabled"]}`},
		{"compiler options of an interpreted language", map[string]any{"language_id": 71, "source_code": "x", "compiler_options": "-O"}, `{"compiler_options":["setting compiler options is not allowed for this language"]}`},
		{"compiler option off the list", map[string]any{"language_id": 54, "source_code": "x", "compiler_options": "-O2 -o /tmp/x"}, `{"compiler_options":["option \"-o\" is not on the list of options oj allows for this language (docs/judge0.md)"]}`},
		{"unterminated quote", map[string]any{"language_id": 71, "source_code": "x", "command_line_arguments": "'a b"}, `{"command_line_arguments":["has an unterminated quote"]}`},
		{"callback not http", map[string]any{"language_id": 71, "source_code": "x", "callback_url": "file:///etc/passwd"}, `{"callback_url":["must be an http or https URL"]}`},
		{"files not a zip", map[string]any{"language_id": 71, "source_code": "x", "additional_files": "bm90IGEgemlw"}, `{"additional_files":["is not a zip archive: zip: not a valid zip file"]}`},
	} {
		code, _, b := c.do("POST", "/submissions", cs.sub, as(c.user)...)
		if code != http.StatusUnprocessableEntity || strings.TrimSpace(string(b)) != cs.want {
			t.Errorf("%s: %d %s\nwant 422 %s", cs.name, code, b, cs.want)
		}
	}
	code, _, b := c.do("GET", "/submissions/nope?fields=token,bogus", nil, as(c.user)...)
	if code != 400 || strings.TrimSpace(string(b)) != `{"error":"invalid fields: [bogus]"}` {
		t.Errorf("invalid fields: %d %s", code, b)
	}
	if code, _, b := c.do("GET", "/submissions/no-such-token", nil, as(c.user)...); code != 404 || len(b) != 0 {
		t.Errorf("unknown token: %d %q", code, b)
	}
}

// Auth as Judge0's, on oj's tokens: X-Auth-Token or a bearer token creates, a reader
// token does not, reads by token need none by default and one when the setting is off,
// admin calls take an admin token (X-Auth-User or the caller's). CORS names the headers.
func judge0AuthAndCORS(t *testing.T, s *system) {
	c := judge0On(t, s, nil)
	sub := map[string]any{"language_id": 71, "source_code": "print(1)"}
	if code, _, b := c.do("POST", "/submissions", sub); code != 401 || len(b) != 0 {
		t.Errorf("no token: %d %q", code, b)
	}
	if code, _, _ := c.do("POST", "/submissions", sub, as("not-a-token")...); code != 401 {
		t.Errorf("bad token: %d", code)
	}
	if code, _, _ := c.do("POST", "/submissions", sub, as(c.reader)...); code != 403 {
		t.Errorf("reader token: %d", code)
	}
	code, _, b := c.do("POST", "/submissions", sub, "Authorization", "Bearer "+c.user)
	if code != 201 {
		t.Fatalf("bearer token: %d %s", code, b)
	}
	token := object(t, b)["token"].(string)
	if len(token) != 36 || strings.Count(token, "-") != 4 {
		t.Errorf("token is not a UUID: %q", token)
	}
	if code, _, _ := c.do("GET", "/submissions/"+token, nil); code != 200 {
		t.Errorf("anonymous read by token: %d", code)
	}
	for _, p := range []string{"/languages", "/statuses", "/about", "/config_info"} {
		if code, _, _ := c.do("GET", p, nil); code != 200 {
			t.Errorf("anonymous %s: %d", p, code)
		}
	}
	for _, p := range []string{"/workers", "/system_info"} {
		if code, _, _ := c.do("GET", p, nil, as(c.user)...); code != 403 {
			t.Errorf("user on %s: %d", p, code)
		}
		if code, _, _ := c.do("GET", p, nil, append(as(c.user), "X-Auth-User", c.admin)...); code != 200 {
			t.Errorf("X-Auth-User admin on %s: %d", p, code)
		}
		if code, _, _ := c.do("GET", p, nil, append(as(c.user), "X-Auth-User", c.user)...); code != 403 {
			t.Errorf("X-Auth-User user on %s: %d", p, code)
		}
	}
	if code, _, _ := c.do("GET", "/system_info", nil, "X-Auth-User", c.admin); code != 200 {
		t.Errorf("X-Auth-User alone: %d", code)
	}
	if code, _, _ := c.do("GET", "/system_info", nil); code != 401 {
		t.Errorf("system_info without credentials: %d", code)
	}
	if code, _, b := c.do("GET", "/workers", nil, as(c.admin)...); code != 200 || !strings.Contains(string(b), `"queue":"run"`) {
		t.Errorf("workers: %d %s", code, b)
	}
	if code, _, b := c.do("DELETE", "/submissions/"+token, nil, as(c.admin)...); code != 400 || !strings.Contains(string(b), "delete not allowed") {
		t.Errorf("delete: %d %s", code, b)
	}
	if code, _, _ := c.do("DELETE", "/submissions/"+token, nil, as(c.user)...); code != 403 {
		t.Errorf("delete by a user: %d", code)
	}

	closed := judge0On(t, s, func(cfg *j0api.Config) { cfg.AllowUnauthenticatedReads = false })
	if code, _, _ := closed.do("GET", "/submissions/"+token, nil); code != 401 {
		t.Errorf("anonymous read with the setting off: %d", code)
	}
	if code, _, _ := closed.do("GET", "/submissions/"+token, nil, as(closed.reader)...); code != 200 {
		t.Errorf("reader's read by token: %d", code)
	}

	code, h, _ := c.do("OPTIONS", "/submissions", nil, "Origin", "https://ide.example",
		"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "x-auth-token,content-type")
	if code != 204 || h.Get("Access-Control-Allow-Origin") != "https://ide.example" ||
		h.Get("Access-Control-Allow-Headers") != "X-Auth-Token, X-Auth-User, Authorization, Content-Type" ||
		!strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") {
		t.Errorf("preflight: %d %v", code, h)
	}
	if _, h, _ := c.do("OPTIONS", "/submissions", nil, "Origin", "https://evil.example", "Access-Control-Request-Method", "POST"); h.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from another origin allowed: %v", h)
	}
	if _, h, _ := c.do("GET", "/statuses", nil, "Origin", "https://ide.example"); h.Get("Access-Control-Allow-Origin") != "https://ide.example" {
		t.Errorf("simple request: %v", h)
	}
}

// The lists: languages by Judge0 id (old and new ids of one oj language), one language,
// the statuses, about and config_info.
func judge0Info(t *testing.T, s *system) {
	c := judge0On(t, s, func(cfg *j0api.Config) { cfg.Prefix = "/" })
	_, _, b := c.do("GET", "/languages", nil)
	var langs []map[string]any
	if err := json.Unmarshal(b, &langs); err != nil {
		t.Fatal(err)
	}
	ids := map[float64]string{}
	for _, l := range langs {
		ids[l["id"].(float64)] = l["name"].(string)
	}
	for _, id := range []float64{50, 54, 62, 71, 91, 100, 105} {
		if ids[id] == "" {
			t.Errorf("language %v missing from %v", id, ids)
		}
	}
	if !strings.HasPrefix(ids[54], "C++ (") || !strings.HasPrefix(ids[71], "Python (") {
		t.Errorf("names keep Judge0's family: %v", ids)
	}
	code, _, b := c.do("GET", "/languages/54", nil)
	if m := object(t, b); code != 200 || m["source_file"] != "main.cpp" || m["compile_cmd"] == nil || m["is_archived"] != false {
		t.Errorf("language 54: %d %s", code, b)
	}
	if code, _, _ := c.do("GET", "/languages/44", nil); code != 404 {
		t.Errorf("language 44: %d", code)
	}
	_, _, b = c.do("GET", "/statuses", nil)
	var sts []map[string]any
	if err := json.Unmarshal(b, &sts); err != nil || len(sts) != 14 || sts[13]["description"] != "Exec Format Error" {
		t.Errorf("statuses: %s", b)
	}
	if _, _, b := c.do("GET", "/about", nil); object(t, b)["version"] != "1.13.1" {
		t.Errorf("about: %s", b)
	}
	_, _, b = c.do("GET", "/config_info", nil)
	ci := object(t, b)
	if ci["max_submission_batch_size"].(float64) != 20 || ci["enable_network"] != false || ci["max_cpu_time_limit"].(float64) != 10 {
		t.Errorf("config_info: %s", b)
	}
	// At the root, oj's own routes still answer.
	if code, _, _ := c.do("GET", "/healthz", nil); code != 200 {
		t.Errorf("healthz beside a root face: %d", code)
	}
}
