package api_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"oj/core/api"
	"oj/core/api/client"
	"oj/core/job"
	"oj/core/store"
	"oj/core/wire"
)

func TestSubmitWaitReturnsTheJudgedSubmission(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	wait := int64(10_000)
	res, err := e.alice.Submit(context.Background(), wire.SubmitRequest{ProblemID: "aplusb", Language: "cpp17",
		Source: "int main(){}", WaitMS: &wait}, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != http.StatusOK || res.Submission == nil {
		t.Fatalf("submit with wait_ms: status %d, want 200 with the submission", res.Status)
	}
	s := res.Submission
	if s.State != "finished" || s.Verdict == nil || *s.Verdict != "AC" || len(s.Cases) != 1 || s.ProblemVersion != 1 ||
		s.Attempt != 1 || s.FinishedAt == nil || s.Language != "cpp17" {
		t.Fatalf("judged submission = %+v", s)
	}
	// The trace id of the request is the submission's.
	tr, err := e.admin.Trace(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Submission.TraceID != res.TraceID || res.TraceID == "" || tr.Submission.Lane != "heavy" {
		t.Fatalf("trace id %q / lane %q, want the request's %q on heavy", tr.Submission.TraceID, tr.Submission.Lane, res.TraceID)
	}
	// The owner by the name the operator knows the caller by, beside its id.
	if tr.Submission.Owner != "alice" || tr.Submission.OwnerID == nil {
		t.Fatalf("trace owner %q (id %v), want alice", tr.Submission.Owner, tr.Submission.OwnerID)
	}
}

func TestSubmitWithoutWaitIsAccepted(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true})
	code, h, body := e.raw("POST", "/api/v1/submissions", tokenOf(e.alice), submitBody("aplusb", "python3", "print(1)", 0),
		map[string]string{"X-Trace-Id": "my-trace-1"})
	if code != http.StatusAccepted || body["state"] != "queued" || body["id"] == "" || len(body) != 2 {
		t.Fatalf("submit = %d %v, want 202 {id, state: queued}", code, body)
	}
	if h.Get("X-Trace-Id") != "my-trace-1" {
		t.Fatalf("X-Trace-Id = %q", h.Get("X-Trace-Id"))
	}
	// wait_ms with nothing judging: 202 after the wait.
	start := time.Now()
	code, _, body = e.raw("POST", "/api/v1/submissions", tokenOf(e.alice), submitBody("aplusb", "python3", "print(2)", 300), nil)
	if code != http.StatusAccepted || body["state"] != "queued" || time.Since(start) < 300*time.Millisecond {
		t.Fatalf("submit with wait_ms and no worker = %d %v after %s", code, body, time.Since(start))
	}
	s, err := e.alice.Submission(context.Background(), body["id"].(string))
	if err != nil || s.State != "queued" || s.Verdict != nil || s.Cases == nil {
		t.Fatalf("queued submission = %+v %v", s, err)
	}
}

func TestSubmitStatusCodes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true, limits: func(l *api.Limits) { l.MaxSourceBytes = 100 }})
	alice := tokenOf(e.alice)
	tests := []struct {
		name   string
		token  string
		body   string
		header map[string]string
		status int
		code   string
	}{
		{"malformed JSON", alice, `{"problem_id":`, nil, 400, "malformed_json"},
		{"not an object", alice, `[1,2]`, nil, 400, "malformed_json"},
		{"unknown field", alice, `{"problem_id":"aplusb","language":"python3","source":"x","lang":"c"}`, nil, 400, "malformed_json"},
		{"trailing data", alice, `{"problem_id":"aplusb","language":"python3","source":"x"} {}`, nil, 400, "malformed_json"},
		{"unknown language", alice, `{"problem_id":"aplusb","language":"cobol","source":"x"}`, nil, 400, "unknown_language"},
		{"empty source", alice, `{"problem_id":"aplusb","language":"python3","source":""}`, nil, 400, "empty_source"},
		{"negative wait", alice, `{"problem_id":"aplusb","language":"python3","source":"x","wait_ms":-1}`, nil, 400, "bad_request"},
		{"unknown problem", alice, `{"problem_id":"nope","language":"python3","source":"x"}`, nil, 404, "not_found"},
		{"source over the limit", alice, `{"problem_id":"aplusb","language":"python3","source":"` + strings.Repeat("x", 101) + `"}`, nil, 413, "too_large"},
		{"body over the limit", alice, `{"problem_id":"aplusb","language":"python3","source":"` + strings.Repeat("\\u0000", 20000) + `"}`, nil, 413, "too_large"},
		// Text PostgreSQL cannot store is refused up front, never a 503 "retry later".
		{"NUL in source", alice, `{"problem_id":"aplusb","language":"python3","source":"print(1)\u0000"}`, nil, 400, "bad_request"},
		{"invalid UTF-8 in source", alice, "{\"problem_id\":\"aplusb\",\"language\":\"python3\",\"source\":\"print('\xff')\"}", nil, 400, "malformed_json"},
		{"unpaired surrogate in source", alice, `{"problem_id":"aplusb","language":"python3","source":"print('\ud800')"}`, nil, 400, "malformed_json"},
		{"NUL in problem_id", alice, `{"problem_id":"aplusb\u0000","language":"python3","source":"x"}`, nil, 400, "bad_request"},
		{"NUL in language", alice, `{"problem_id":"aplusb","language":"python3\u0000","source":"x"}`, nil, 400, "bad_request"},
		{"problem id no problem can have", alice, `{"problem_id":"../APlusB","language":"python3","source":"x"}`, nil, 404, "not_found"},
		{"Idempotency-Key not UTF-8", alice, `{"problem_id":"aplusb","language":"python3","source":"x"}`, map[string]string{"Idempotency-Key": "k\xff\xfe"}, 400, "bad_request"},
		{"missing token", "", `{}`, nil, 401, "unauthorized"},
		{"bad token", "oj_nope", `{}`, nil, 401, "unauthorized"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := e.raw("POST", "/api/v1/submissions", tc.token, []byte(tc.body), tc.header)
			errBody, _ := body["error"].(map[string]any)
			if code != tc.status || errBody["code"] != tc.code || errBody["message"] == "" {
				t.Fatalf("status %d body %v, want %d with code %s", code, body, tc.status, tc.code)
			}
		})
	}
	// Ids in paths that PostgreSQL could not take as text are unknown ids, not a 503.
	for _, path := range []string{"/api/v1/submissions/%00", "/api/v1/submissions/%FF", "/api/v1/submissions/%00/events",
		"/api/v1/problems/%00", "/api/v1/problems/%FF%FE"} {
		code, _, body := e.raw("GET", path, alice, nil, nil)
		if code != http.StatusNotFound {
			t.Errorf("GET %s: %d %v, want 404", path, code, body)
		}
	}
	for _, c := range []struct {
		method, path, body string
		status             int
	}{
		{"GET", "/admin/v1/submissions?problem=%00", "", 400},
		{"GET", "/admin/v1/submissions?problem=%FF", "", 400},
		{"POST", "/admin/v1/problems/%00/rejudge", `{"dry_run":true}`, 404},
		{"POST", "/admin/v1/submissions/%00/rejudge", `{"dry_run":true}`, 404},
		{"POST", "/admin/v1/submissions/%FF/cancel", `{"dry_run":true}`, 404},
		{"GET", "/admin/v1/submissions/%00/trace", "", 404},
	} {
		code, _, body := e.raw(c.method, c.path, tokenOf(e.admin), []byte(c.body), nil)
		if code != c.status {
			t.Errorf("%s %s: %d %v, want %d", c.method, c.path, code, body, c.status)
		}
	}
	var n int
	if err := e.db.QueryRow(context.Background(), `SELECT count(*) FROM submissions`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("submissions = %d %v, want none", n, err)
	}
	// Basic auth is not a bearer token.
	code, _, _ := e.raw("GET", "/api/v1/languages", "", nil, map[string]string{"Authorization": "Basic YTpi"})
	if code != 401 {
		t.Fatalf("basic auth: %d, want 401", code)
	}
}

func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true})
	ctx := context.Background()
	req := wire.SubmitRequest{ProblemID: "aplusb", Language: "python3", Source: "print(3)"}
	// Two concurrent submits with one key create one submission.
	for round := 0; round < 5; round++ {
		key := "key-" + strconv.Itoa(round)
		var wg sync.WaitGroup
		results := make([]*client.SubmitResult, 4)
		errs := make([]error, 4)
		for i := range results {
			wg.Add(1)
			go func() { defer wg.Done(); results[i], errs[i] = e.alice.Submit(ctx, req, key) }()
		}
		wg.Wait()
		replayed := 0
		for i, r := range results {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if r.ID() != results[0].ID() {
				t.Fatalf("round %d: ids %s and %s for one key", round, r.ID(), results[0].ID())
			}
			if r.Replayed {
				replayed++
			}
		}
		if replayed != len(results)-1 {
			t.Fatalf("round %d: %d replayed answers, want %d", round, replayed, len(results)-1)
		}
	}
	var n int
	if err := e.db.QueryRow(ctx, `SELECT count(*) FROM submissions`).Scan(&n); err != nil || n != 5 {
		t.Fatalf("submissions = %d %v, want 5", n, err)
	}
	// The same key with another body: 422.
	_, err := e.alice.Submit(ctx, wire.SubmitRequest{ProblemID: "aplusb", Language: "python3", Source: "print(4)"}, "key-0")
	if client.StatusOf(err) != http.StatusUnprocessableEntity {
		t.Fatalf("reused key with another body: %v, want 422", err)
	}
	// Keys are per user: bob's key-0 is a new submission.
	r, err := e.bob.Submit(ctx, req, "key-0")
	if err != nil || r.Replayed || r.Status != http.StatusAccepted {
		t.Fatalf("bob's key-0: %+v %v", r, err)
	}
}

func TestUsersSeeOnlyTheirOwnSubmissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true})
	ctx := context.Background()
	id := e.submit(e.alice, "print(1)")
	if _, err := e.alice.Submission(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := e.admin.Submission(ctx, id); err != nil {
		t.Fatal(err)
	}
	for name, get := range map[string]func() error{
		"get":     func() error { _, err := e.bob.Submission(ctx, id); return err },
		"events":  func() error { return e.bob.Events(ctx, id, func(wire.StateEvent) error { return nil }) },
		"missing": func() error { _, err := e.alice.Submission(ctx, "01890000-0000-7000-8000-000000000000"); return err },
		"bad id":  func() error { _, err := e.alice.Submission(ctx, "not-a-uuid"); return err },
	} {
		if err := get(); client.StatusOf(err) != http.StatusNotFound {
			t.Errorf("%s: %v, want 404", name, err)
		}
	}
}

func TestUserTokenIsRefusedOnEveryAdminRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true})
	id := e.submit(e.alice, "print(1)")
	routes := [][2]string{
		{"GET", "/admin/v1/overview"}, {"GET", "/admin/v1/pel"}, {"POST", "/admin/v1/reclaim"},
		{"GET", "/admin/v1/outbox"}, {"GET", "/admin/v1/dlq"}, {"POST", "/admin/v1/dlq/replay"},
		{"GET", "/admin/v1/submissions"},
		{"POST", "/admin/v1/trim"}, {"POST", "/admin/v1/submissions/" + id + "/rejudge"},
		{"POST", "/admin/v1/problems/aplusb/rejudge"}, {"POST", "/admin/v1/submissions/" + id + "/cancel"},
		{"GET", "/admin/v1/workers"}, {"GET", "/admin/v1/audit"}, {"GET", "/admin/v1/submissions/" + id + "/trace"},
		{"PUT", "/api/v1/problems/aplusb"},
	}
	for _, rt := range routes {
		code, _, body := e.raw(rt[0], rt[1], tokenOf(e.alice), []byte(`{}`), nil)
		if code != http.StatusForbidden || body["error"].(map[string]any)["code"] != "forbidden" {
			t.Errorf("%s %s with a user token: %d %v, want 403", rt[0], rt[1], code, body)
		}
		if code, _, _ := e.raw(rt[0], rt[1], "", []byte(`{}`), nil); code != http.StatusUnauthorized {
			t.Errorf("%s %s without a token: %d, want 401", rt[0], rt[1], code)
		}
	}
	// Nothing was canceled or requeued by the refused calls.
	s, err := e.admin.Submission(context.Background(), id)
	if err != nil || s.State != "queued" {
		t.Fatalf("after refused admin calls: %+v %v", s, err)
	}
}

func TestSubmitAnswers503WhenPostgreSQLCannotCommit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true})
	ctx := context.Background()
	// The database refuses every new submission from now on.
	if _, err := e.db.Exec(ctx, `CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS
		$$ BEGIN RAISE EXCEPTION 'disk full'; END $$;
		CREATE TRIGGER refuse BEFORE INSERT ON submissions FOR EACH ROW EXECUTE FUNCTION refuse();`); err != nil {
		t.Fatal(err)
	}
	code, h, body := e.raw("POST", "/api/v1/submissions", tokenOf(e.alice), submitBody("aplusb", "python3", "x", 0), nil)
	if code != http.StatusServiceUnavailable || h.Get("Retry-After") == "" || body["error"].(map[string]any)["code"] != "unavailable" {
		t.Fatalf("submit on a refusing database: %d %v %v", code, h, body)
	}
	if strings.Contains(body["error"].(map[string]any)["message"].(string), "disk full") {
		t.Fatal("the database's error leaked to the client")
	}
	var n int
	_ = e.db.QueryRow(ctx, `SELECT count(*) FROM outbox`).Scan(&n)
	if n != 0 {
		t.Fatalf("outbox rows = %d after a refused submit", n)
	}
}

func TestLanguagesAndProblems(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true})
	ctx := context.Background()
	langs, err := e.alice.Languages(ctx)
	if err != nil || len(langs) < 6 {
		t.Fatalf("languages = %v %v", langs, err)
	}
	byID := map[string]wire.Language{}
	for _, l := range langs {
		byID[l.ID] = l
	}
	if byID["python3"].Lane != string(job.LaneLight) || byID["cpp17"].Lane != string(job.LaneHeavy) || !byID["cpp17"].Compiled {
		t.Fatalf("languages = %+v", byID)
	}
	// Before a worker announced it, a name goes without its version; the commands are
	// those configured.
	if l := byID["pypy3"]; l.Name != "PyPy" || l.Detected || len(l.Run) == 0 || len(l.Compile) == 0 || l.MemoryFactor <= 0 {
		t.Fatalf("pypy3 before any worker = %+v", l)
	}
	if l := byID["bash"]; l.Run[0] != "/bin/bash" {
		t.Fatalf("bash = %+v", l)
	}
	// A live worker's detected names are served (one without lanes: no capacity).
	if _, _, err := store.AnnounceWorker(ctx, e.db, "names-worker", store.Announcement{Lanes: map[string]int{},
		Languages: []string{"pypy3"}, LanguageNames: map[string]string{"pypy3": "PyPy 7.3.11"}}); err != nil {
		t.Fatal(err)
	}
	langs, err = e.alice.Languages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range langs {
		if l.ID == "pypy3" && (l.Name != "PyPy 7.3.11" || !l.Detected) {
			t.Fatalf("pypy3 after a worker announced it = %+v", l)
		}
		if l.ID == "python3" && (l.Name != "Python" || l.Detected) {
			t.Fatalf("python3, which no worker announced = %+v", l)
		}
	}
	p, err := e.alice.Problem(ctx, "aplusb")
	if err != nil || p.Title != "A+B" || p.Version != 1 || p.CaseCount != 3 || len(p.SHA256) != 64 || p.Checker != "lines" {
		t.Fatalf("problem = %+v %v", p, err)
	}
	// A new upload is a new version.
	zip := problemZip("title: A+B v2\nsubtasks:\n  - {score: 40, cases: [1]}\n  - {score: 60, cases: [2, 3]}\n")
	p2, err := e.admin.PutProblem(ctx, "aplusb", strings.NewReader(zip))
	if err != nil || p2.Version != 2 || p2.Title != "A+B v2" || len(p2.Subtasks) != 2 || p2.Subtasks[1].Cases[1] != 3 {
		t.Fatalf("second upload = %+v %v", p2, err)
	}
	if got, _ := e.alice.Problem(ctx, "aplusb"); got.Version != 2 || got.SHA256 == p.SHA256 {
		t.Fatalf("after upload: %+v", got)
	}
	// Submissions use the latest version.
	id := e.submit(e.alice, "print(1)")
	if s, _ := e.alice.Submission(ctx, id); s.ProblemVersion != 2 {
		t.Fatalf("submission on version %d, want 2", s.ProblemVersion)
	}
	// Bad packages: 400 saying why.
	for name, body := range map[string]string{
		"not a zip":  "hello",
		"no tests":   zipOf(map[string]string{"problem.yaml": "title: X\n"}),
		"dotdot":     zipOf(map[string]string{"problem.yaml": "title: X\n", "../evil": "x", "tests/1.in": "", "tests/1.out": ""}),
		"bad limits": problemZip("title: X\ntime_limit_ms: 999999\n"),
		// A tree no worker could extract (its submissions would be dead-lettered).
		"file inside a file": zipOf(map[string]string{"problem.yaml": "title: X\n", "tests/1.in": "", "tests/1.out": "", "a": "x", "a/b": "y"}),
	} {
		_, err := e.admin.PutProblem(ctx, "bad", strings.NewReader(body))
		var ae *client.Error
		if !errors.As(err, &ae) || ae.Status != 400 || ae.Code != "invalid_package" || ae.Message == "" {
			t.Errorf("%s: %v, want 400 invalid_package", name, err)
		}
		if name == "file inside a file" && (ae == nil || !strings.Contains(ae.Message, `"a/b": is inside "a", which is a file`)) {
			t.Errorf("%s: %v, want the reason", name, err)
		}
	}
	if _, err := e.admin.PutProblem(ctx, "Bad..Id", strings.NewReader(zip)); client.StatusOf(err) != 400 {
		t.Errorf("bad problem id: %v", err)
	}
	if _, err := e.alice.Problem(ctx, "bad"); client.StatusOf(err) != 404 {
		t.Errorf("problem never stored: %v, want 404", err)
	}
}
