package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"oj/core/api"
	"oj/core/api/apitest"
	"oj/core/job"
	"oj/core/judge/lang"
	"oj/core/judge/objstore"
	"oj/core/judge/problem"
	"oj/core/judge/problem/problemtest"
	"oj/core/wire"
	"oj/core/worker"
)

// byMarker judges by what the source says: "wa" is a WA whose checker quotes the answer,
// "die" fails the judge every time (the submission ends dead), anything else is AC.
func byMarker(t job.Task, call int) (job.Outcome, error) {
	switch t.Source {
	case "wa":
		return waWithCheckerMessage(t, call)
	case "die":
		return job.Outcome{}, errJudge
	}
	return acceptAll(t, call)
}

func wantHeader(name, value string) func(*testing.T, http.Header, []byte) {
	return func(t *testing.T, h http.Header, _ []byte) {
		if got := h.Get(name); got != value {
			t.Fatalf("header %s = %q, want %q", name, got, value)
		}
	}
}

func wantInBody(s string) func(*testing.T, http.Header, []byte) {
	return func(t *testing.T, _ http.Header, body []byte) {
		if !strings.Contains(string(body), s) {
			t.Fatalf("answer %s lacks %q", body, s)
		}
	}
}

// Every route answers as docs/openapi.yaml says: users and admins, successes and the
// main refusals, on the real pipeline.
func TestOpenAPIAnswersMatchTheSpec(t *testing.T) {
	t.Parallel()
	ck := newChecker(t)
	e := newEnv(t, envOpts{limits: func(l *api.Limits) { l.MaxProblemBytes = 64 << 10 },
		workerCfg: func(c *worker.Config) { c.Name = "spec-worker" }})
	e.judge.Set(byMarker, 0)
	alice, bob, admin := tokenOf(e.alice), tokenOf(e.bob), tokenOf(e.admin)
	do := func(c call) []byte { t.Helper(); _, b := ck.do(e.http.URL, c); return b }
	wait := func(problemID, source string) []byte {
		return submitBody(problemID, "python3", source, 10_000)
	}

	// Health, languages, problems.
	do(call{name: "liveness", method: "GET", path: "/healthz", want: 200})
	do(call{name: "readiness", method: "GET", path: "/readyz", want: 200})
	do(call{name: "metrics", method: "GET", path: "/metrics", want: 200})
	do(call{name: "languages", method: "GET", path: "/api/v1/languages", token: alice, want: 200})
	do(call{name: "no token", method: "GET", path: "/api/v1/languages", want: 401, offSpec: true})
	do(call{name: "unknown token", method: "GET", path: "/api/v1/languages", token: "nope", want: 401})
	zip := []byte(problemZip("title: Spec\n"))
	do(call{name: "upload", method: "PUT", path: "/api/v1/problems/spec", token: admin, body: zip, ctype: "application/zip", want: 201})
	do(call{name: "upload as a user", method: "PUT", path: "/api/v1/problems/spec", token: alice, body: zip, ctype: "application/zip", want: 403})
	do(call{name: "upload of a bad package", method: "PUT", path: "/api/v1/problems/spec", token: admin,
		body: []byte("not a zip"), ctype: "application/zip", want: 400, check: wantInBody("invalid_package")})
	do(call{name: "upload under a bad id", method: "PUT", path: "/api/v1/problems/Bad.Id", token: admin, body: zip,
		ctype: "application/zip", want: 400, offSpec: true})
	do(call{name: "upload too large", method: "PUT", path: "/api/v1/problems/spec", token: admin,
		body: make([]byte, 64<<10+1), ctype: "application/octet-stream", want: 413})
	do(call{name: "problem", method: "GET", path: "/api/v1/problems/spec", token: alice, want: 200})
	do(call{name: "unknown problem", method: "GET", path: "/api/v1/problems/nosuch", token: alice, want: 404})
	do(call{name: "problem list", method: "GET", path: "/api/v1/problems", token: admin, want: 200})
	// A package with samples, a statement and labeled submissions.
	withFiles := problemtest.APlusB("title: Files\nsamples: [1]\nsubmissions:\n  - {source: submissions/accepted/ok.py, language: python3, expect: [AC]}\n")
	withFiles["statement/problem.en.md"] = "Add two numbers.\n"
	withFiles["submissions/accepted/ok.py"] = "print(3)\n"
	do(call{name: "upload with files", method: "PUT", path: "/api/v1/problems/files?format=oj", token: admin,
		body: problemtest.Zip(withFiles), ctype: "application/zip", want: 201})
	do(call{name: "upload, unknown format", method: "PUT", path: "/api/v1/problems/files?format=icpc", token: admin,
		body: zip, ctype: "application/zip", want: 400, offSpec: true})
	do(call{name: "a sample's input", method: "GET", path: "/api/v1/problems/files/samples/1/input", token: alice, want: 200,
		check: wantInBody("1 2")})
	do(call{name: "a hidden case is no sample", method: "GET", path: "/api/v1/problems/files/samples/2/input", token: alice, want: 404})
	do(call{name: "a statement file", method: "GET", path: "/api/v1/problems/files/statement/problem.en.md", token: alice, want: 200,
		check: wantHeader("Content-Security-Policy", "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'")})
	do(call{name: "no such statement file", method: "GET", path: "/api/v1/problems/files/statement/problem.yaml", token: alice, want: 404})
	do(call{name: "verify, dry run", method: "POST", path: "/admin/v1/problems/files/verify", token: admin, body: []byte(`{"dry_run":true}`), want: 200})
	do(call{name: "verify", method: "POST", path: "/admin/v1/problems/files/verify", token: admin, want: 202})
	do(call{name: "verify a problem without labeled submissions", method: "POST", path: "/admin/v1/problems/spec/verify", token: admin, want: 409})
	do(call{name: "verify as a user", method: "POST", path: "/admin/v1/problems/files/verify", token: alice, want: 403})
	do(call{name: "a verification", method: "GET", path: "/admin/v1/problems/files/verify", token: admin, want: 200})
	do(call{name: "no verification", method: "GET", path: "/admin/v1/problems/spec/verify", token: admin, want: 404})
	do(call{name: "problem list as a user", method: "GET", path: "/api/v1/problems", token: alice, want: 403})

	// Submits.
	done := jsonField(t, do(call{name: "submit and wait", method: "POST", path: "/api/v1/submissions", token: alice,
		body: wait("spec", "print(1)"), want: 200}), "id")
	do(call{name: "submit", method: "POST", path: "/api/v1/submissions", token: alice,
		body: submitBody("spec", "python3", "print(2)", 0), want: 202})
	keyed := map[string]string{"Idempotency-Key": "spec-1"}
	do(call{name: "submit with a key", method: "POST", path: "/api/v1/submissions", token: alice, header: keyed,
		body: wait("spec", "print(3)"), want: 200})
	do(call{name: "the same submit again", method: "POST", path: "/api/v1/submissions", token: alice, header: keyed,
		body: wait("spec", "print(3)"), want: 200, check: wantHeader("Idempotent-Replayed", "true")})
	do(call{name: "the key with another body", method: "POST", path: "/api/v1/submissions", token: alice, header: keyed,
		body: wait("spec", "print(4)"), want: 422})
	do(call{name: "malformed JSON", method: "POST", path: "/api/v1/submissions", token: alice, body: []byte(`{"problem_id":`),
		want: 400, offSpec: true})
	do(call{name: "unknown language", method: "POST", path: "/api/v1/submissions", token: alice,
		body: submitBody("spec", "cobol", "x", 0), want: 400, check: wantInBody("unknown_language")})
	do(call{name: "empty source", method: "POST", path: "/api/v1/submissions", token: alice,
		body: submitBody("spec", "python3", "", 0), want: 400, offSpec: true})
	do(call{name: "unknown problem", method: "POST", path: "/api/v1/submissions", token: alice,
		body: submitBody("nosuch", "python3", "x", 0), want: 404})
	do(call{name: "source too large", method: "POST", path: "/api/v1/submissions", token: alice,
		body: submitBody("spec", "python3", strings.Repeat("x", 64<<10+1), 0), want: 413})
	wa := jsonField(t, do(call{name: "a WA", method: "POST", path: "/api/v1/submissions", token: alice,
		body: wait("spec", "wa"), want: 200}), "id")
	dead := e.submit(e.alice, "die")
	e.waitTerminal(dead, 20*time.Second)

	// Reading submissions.
	sub := "/api/v1/submissions/"
	do(call{name: "own submission", method: "GET", path: sub + done, token: alice, want: 200})
	do(call{name: "another's submission", method: "GET", path: sub + done, token: bob, want: 404})
	do(call{name: "a submission as admin", method: "GET", path: sub + wa, token: admin, want: 200, check: wantInBody(`"checker_message"`)})
	do(call{name: "a dead submission", method: "GET", path: sub + dead, token: alice, want: 200, check: wantInBody(`"state":"dead"`)})
	do(call{name: "unknown submission", method: "GET", path: sub + "01890000-0000-7000-8000-000000000000", token: alice, want: 404})
	do(call{name: "not an id", method: "GET", path: sub + "nope", token: alice, want: 404, offSpec: true})
	do(call{name: "events of a judged submission", method: "GET", path: sub + done + "/events", token: alice, want: 200})
	do(call{name: "events of another's", method: "GET", path: sub + done + "/events", token: bob, want: 404})
	do(call{name: "a case", method: "GET", path: sub + done + "/cases/1", token: alice, want: 200})
	do(call{name: "a case as admin", method: "GET", path: sub + wa + "/cases/2", token: admin, want: 200})
	do(call{name: "another's case", method: "GET", path: sub + done + "/cases/1", token: bob, want: 404})
	do(call{name: "no such case", method: "GET", path: sub + done + "/cases/9", token: alice, want: 404})
	do(call{name: "case 0", method: "GET", path: sub + done + "/cases/0", token: alice, want: 400, offSpec: true})

	// Runs.
	run := jsonField(t, do(call{name: "run and wait", method: "POST", path: "/api/v1/runs", token: alice,
		body: []byte(`{"language":"python3","source":"print(input())","stdins":["1\n","2\n"],"wait_ms":10000}`), want: 200,
		check: wantInBody(`"status":"OK"`)}), "id")
	do(call{name: "run", method: "POST", path: "/api/v1/runs", token: alice,
		body: []byte(`{"language":"python3","source":"print(1)"}`), want: 202})
	do(call{name: "run over the maxima", method: "POST", path: "/api/v1/runs", token: alice,
		body: []byte(`{"language":"python3","source":"print(1)","stdin":"","limits":{"time_ms":999999,"memory_mb":999999}}`),
		want: 202, check: wantInBody(`runs.max_time`)})
	do(call{name: "run with stdin and stdins", method: "POST", path: "/api/v1/runs", token: alice,
		body: []byte(`{"language":"python3","source":"print(1)","stdin":"","stdins":[""]}`), want: 400})
	do(call{name: "run of an unknown language", method: "POST", path: "/api/v1/runs", token: alice,
		body: []byte(`{"language":"cobol","source":"x"}`), want: 400, check: wantInBody("unknown_language")})
	do(call{name: "run with inputs too large", method: "POST", path: "/api/v1/runs", token: alice,
		body: []byte(`{"language":"python3","source":"x","stdin":"` + strings.Repeat("x", 1<<20+1) + `"}`), want: 413})
	do(call{name: "own run", method: "GET", path: "/api/v1/runs/" + run, token: alice, want: 200})
	do(call{name: "a run as admin", method: "GET", path: "/api/v1/runs/" + run, token: admin, want: 200})
	do(call{name: "another's run", method: "GET", path: "/api/v1/runs/" + run, token: bob, want: 404})
	do(call{name: "a run as a submission", method: "GET", path: sub + run, token: alice, want: 404})
	do(call{name: "a submission as a run", method: "GET", path: "/api/v1/runs/" + done, token: alice, want: 404})

	// Admin reads.
	adm := "/admin/v1/"
	do(call{name: "overview", method: "GET", path: adm + "overview", token: admin, want: 200})
	do(call{name: "overview as a user", method: "GET", path: adm + "overview", token: alice, want: 403})
	do(call{name: "pel", method: "GET", path: adm + "pel" + query("lane", "light", "limit", "10"), token: admin, want: 200})
	do(call{name: "pel of no lane", method: "GET", path: adm + "pel?lane=fast", token: admin, want: 400, offSpec: true})
	do(call{name: "outbox", method: "GET", path: adm + "outbox?limit=5", token: admin, want: 200})
	do(call{name: "outbox, limit not a number", method: "GET", path: adm + "outbox?limit=x", token: admin, want: 400, offSpec: true})
	do(call{name: "dlq", method: "GET", path: adm + "dlq?limit=1", token: admin, want: 200, check: wantInBody(dead)})
	do(call{name: "dlq, forged cursor", method: "GET", path: adm + "dlq?cursor=forged", token: admin, want: 400})
	do(call{name: "submissions", method: "GET", path: adm + "submissions" + query("problem", "spec", "limit", "2"), token: admin, want: 200})
	do(call{name: "submissions, no such state", method: "GET", path: adm + "submissions?state=judging", token: admin, want: 400, offSpec: true})
	do(call{name: "workers", method: "GET", path: adm + "workers", token: admin, want: 200})
	do(call{name: "trace of a dead submission", method: "GET", path: adm + "submissions/" + dead + "/trace", token: admin, want: 200})
	do(call{name: "trace of a judged one", method: "GET", path: adm + "submissions/" + wa + "/trace", token: admin, want: 200})
	do(call{name: "trace of none", method: "GET", path: adm + "submissions/01890000-0000-7000-8000-000000000000/trace", token: admin, want: 404})

	// Admin actions, dry runs first.
	dry := []byte(`{"dry_run":true}`)
	do(call{name: "reclaim, dry run", method: "POST", path: adm + "reclaim", token: admin, body: []byte(`{"lane":"light","min_idle_ms":0,"dry_run":true}`), want: 200})
	do(call{name: "reclaim, unknown field", method: "POST", path: adm + "reclaim", token: admin, body: []byte(`{"lanes":"light"}`), want: 400, offSpec: true})
	do(call{name: "replay, dry run", method: "POST", path: adm + "dlq/replay", token: admin, body: []byte(`{"all":true,"dry_run":true}`), want: 200})
	do(call{name: "replay of nothing", method: "POST", path: adm + "dlq/replay", token: admin, body: []byte(`{}`), want: 400})
	do(call{name: "purge, dry run", method: "POST", path: adm + "dlq/purge", token: admin, body: []byte(`{"all":true,"dry_run":true}`), want: 200})
	do(call{name: "purge of nothing", method: "POST", path: adm + "dlq/purge", token: admin, body: []byte(`{}`), want: 400})
	do(call{name: "trim, dry run", method: "POST", path: adm + "trim?dry_run=true", token: admin, body: []byte(`{"strategy":"safe"}`), want: 200})
	do(call{name: "trim, no such strategy", method: "POST", path: adm + "trim", token: admin, body: []byte(`{"strategy":"all"}`), want: 400, offSpec: true})
	do(call{name: "rejudge, dry run", method: "POST", path: adm + "submissions/" + done + "/rejudge", token: admin, body: dry, want: 200})
	do(call{name: "rejudge of none", method: "POST", path: adm + "submissions/01890000-0000-7000-8000-000000000000/rejudge", token: admin, want: 404})
	do(call{name: "problem rejudge, dry run", method: "POST", path: adm + "problems/spec/rejudge?dry_run=true", token: admin, want: 200})
	do(call{name: "problem rejudge of none", method: "POST", path: adm + "problems/nosuch/rejudge", token: admin, want: 404})
	do(call{name: "cancel of a judged one", method: "POST", path: adm + "submissions/" + done + "/cancel", token: admin, want: 409})
	do(call{name: "cancel of none", method: "POST", path: adm + "submissions/01890000-0000-7000-8000-000000000000/cancel", token: admin, want: 404})
	wk := adm + "workers/spec-worker/"
	do(call{name: "drain a worker, dry run", method: "POST", path: wk + "drain", token: admin, body: dry, want: 200,
		check: wantInBody(`"would_change":1`)})
	do(call{name: "drain as a user", method: "POST", path: wk + "drain", token: alice, want: 403})
	do(call{name: "drain an unknown worker", method: "POST", path: adm + "workers/nosuch/drain", token: admin, want: 404})
	do(call{name: "drain a worker", method: "POST", path: wk + "drain", token: admin, body: []byte(`{"reason":"spec"}`), want: 200})
	do(call{name: "drain it again", method: "POST", path: wk + "drain", token: admin, want: 409})
	do(call{name: "disable a worker, dry run", method: "POST", path: wk + "disable?dry_run=true", token: admin, want: 200})
	do(call{name: "enable a worker", method: "POST", path: wk + "enable", token: admin, want: 200, check: wantInBody(`"from":"draining"`)})
	do(call{name: "disable, reason too long", method: "POST", path: wk + "disable", token: admin,
		body: []byte(`{"reason":"` + strings.Repeat("x", 501) + `"}`), want: 400, offSpec: true})
	do(call{name: "remove a problem, dry run", method: "DELETE", path: "/api/v1/problems/spec?dry_run=true", token: admin, want: 200})
	do(call{name: "remove as a user", method: "DELETE", path: "/api/v1/problems/spec", token: alice, want: 403})
	do(call{name: "remove an unknown problem", method: "DELETE", path: "/api/v1/problems/nosuch", token: admin, want: 404})
	do(call{name: "audit", method: "GET", path: adm + "audit?limit=50", token: admin, want: 200, check: wantInBody(`"dry_run":true`)})

	// Integration: a token's own list, the feed, tokens.
	do(call{name: "own submissions", method: "GET", path: "/api/v1/submissions?limit=5", token: alice, want: 200})
	do(call{name: "own submissions by metadata", method: "GET", path: "/api/v1/submissions?meta.contest=none", token: alice, want: 200})
	do(call{name: "own submissions with an owner", method: "GET", path: "/api/v1/submissions?owner=bob", token: alice, want: 400})
	do(call{name: "the feed to its head, NDJSON", method: "GET", path: "/api/v1/events?follow=false", token: admin,
		header: map[string]string{"Accept": "application/x-ndjson"}, want: 200, check: wantInBody(`"type":"submission.finished"`)})
	do(call{name: "the feed to its head, SSE", method: "GET", path: "/api/v1/events?follow=false&types=submission.finished", token: admin,
		want: 200, check: wantInBody(`event: submission.finished`)})
	do(call{name: "the feed as a user", method: "GET", path: "/api/v1/events?follow=false", token: alice, want: 403})
	do(call{name: "the feed from a cursor it never gave", method: "GET", path: "/api/v1/events?since=999999999999-1", token: admin, want: 410})
	do(call{name: "tokens", method: "GET", path: adm + "tokens", token: admin, want: 200})
	do(call{name: "create a token, dry run", method: "POST", path: adm + "tokens", token: admin,
		body: []byte(`{"name":"site","role":"reader","dry_run":true}`), want: 200})
	do(call{name: "create a token", method: "POST", path: adm + "tokens", token: admin,
		body: []byte(`{"name":"site","role":"reader"}`), want: 201, check: wantInBody(`"secret":"oj_`)})
	do(call{name: "create it again", method: "POST", path: adm + "tokens", token: admin,
		body: []byte(`{"name":"site","role":"reader"}`), want: 409})
	do(call{name: "revoke a token, dry run", method: "DELETE", path: adm + "tokens/site?dry_run=true", token: admin, want: 200})
	do(call{name: "revoke a token", method: "DELETE", path: adm + "tokens/site", token: admin, want: 200})
	do(call{name: "revoke it again", method: "DELETE", path: adm + "tokens/site", token: admin, want: 404})
	webhookAnswers(t, e, do)

	// The rest needs a queue no worker drains, a tight bucket, and storage that fails.
	queueAnswers(t, ck)
	refusals(t, ck, e)
	ck.checkCoverage()
}

// queueAnswers: cancel, a rejudge refused while queued, the backlog's 429, and a live
// event stream from queued to finished.
func queueAnswers(t *testing.T, ck *checker) {
	q := newEnv(t, envOpts{noWorker: true, limits: func(l *api.Limits) { l.BacklogMaxQueued = 2 }})
	alice, admin := tokenOf(q.alice), tokenOf(q.admin)
	do := func(c call) []byte { t.Helper(); _, b := ck.do(q.http.URL, c); return b }
	submit := call{name: "submit", method: "POST", path: "/api/v1/submissions", token: alice,
		body: submitBody("aplusb", "python3", "print(1)", 0), want: 202}
	first, second := jsonField(t, do(submit), "id"), jsonField(t, do(submit), "id")
	adm := "/admin/v1/submissions/"
	do(call{name: "cancel, dry run", method: "POST", path: adm + first + "/cancel?dry_run=true", token: admin, want: 200})
	do(call{name: "cancel", method: "POST", path: adm + first + "/cancel", token: admin, want: 200})
	do(call{name: "rejudge of a queued one", method: "POST", path: adm + second + "/rejudge", token: admin, want: 409})

	// The backlog is measured every backlog_refresh: submit until it is seen full.
	for deadline := time.Now().Add(10 * time.Second); ; {
		c := call{name: "submit into a full backlog", method: "POST", path: "/api/v1/submissions", token: tokenOf(q.bob),
			body: submitBody("aplusb", "python3", "print(1)", 0)}
		in, _ := ck.route(t, c)
		resp, err := http.DefaultClient.Do(c.request(t, q.http.URL))
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, resp.Body)
		resp.Body.Close()
		ck.checkAnswer(c.name, in, resp, body)
		if resp.StatusCode == http.StatusTooManyRequests {
			wantInBody("backlog_full")(t, resp.Header, body)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the backlog never refused a submit: last answer %d %s", resp.StatusCode, body)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// A stream opened while the submission is queued follows it to its end.
	c := call{name: "live events", method: "GET", path: "/api/v1/submissions/" + second + "/events", token: alice}
	in, _ := ck.route(t, c)
	resp, err := http.DefaultClient.Do(c.request(t, q.http.URL))
	if err != nil {
		t.Fatal(err)
	}
	stream := bufio.NewReader(resp.Body)
	line, err := stream.ReadString('\n')
	if err != nil || line != "event: state\n" {
		t.Fatalf("first line of the stream = %q %v", line, err)
	}
	q.judge.Set(waWithCheckerMessage, 0)
	q.judge.SetProgress(true)
	q.apienv.StartWorker(nil)
	rest := readAll(t, stream)
	resp.Body.Close()
	body := append([]byte(line), rest...)
	ck.checkAnswer(c.name, in, resp, body)
	events := parseEvents(t, body)
	if last := events[len(events)-1]; !strings.Contains(string(last.data), `"submission":`) {
		t.Fatalf("the stream ended on %s %s, want the terminal state with the submission", last.name, last.data)
	}
	// Last: an archived problem takes no more submissions.
	do(call{name: "remove a problem with submissions", method: "DELETE", path: "/api/v1/problems/aplusb", token: admin, want: 200,
		check: wantInBody(`"archived"`)})
}

// refusals: the caller's token bucket, and storage that cannot answer.
func refusals(t *testing.T, ck *checker, main *env) {
	r := newEnv(t, envOpts{noWorker: true, limits: func(l *api.Limits) { l.UserRate, l.UserBurst = 0.001, 1 }})
	alice := tokenOf(r.alice)
	submit := call{name: "submit", method: "POST", path: "/api/v1/submissions", token: alice,
		body: submitBody("aplusb", "python3", "print(1)", 0), want: 202}
	ck.do(r.http.URL, submit)
	submit.name, submit.want = "submit over the bucket", 429
	submit.check = wantInBody("rate_limited")
	ck.do(r.http.URL, submit)

	// PostgreSQL refuses every new submission: 503, retry later.
	if _, err := r.db.Exec(context.Background(), `CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS
		$$ BEGIN RAISE EXCEPTION 'disk full'; END $$;
		CREATE TRIGGER refuse BEFORE INSERT ON submissions FOR EACH ROW EXECUTE FUNCTION refuse();`); err != nil {
		t.Fatal(err)
	}
	submit.name, submit.token, submit.want, submit.check = "submit PostgreSQL refuses", tokenOf(r.bob), 503, nil
	ck.do(r.http.URL, submit)

	// A server whose PostgreSQL does not answer at all: not ready, and no token can be
	// checked.
	pool, err := pgxpool.New(context.Background(), "postgres://oj@127.0.0.1:1/oj?connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	objects, err := objstore.NewFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := api.DefaultConfig()
	cfg.Limits = apitest.Limits()
	down := httptest.NewServer(api.New(cfg, api.Deps{DB: pool, Streams: main.streams, Languages: lang.Default(),
		Objects: objects, PackageLimits: problem.DefaultLimits(), Log: main.log}).Handler())
	t.Cleanup(down.Close)
	ck.do(down.URL, call{name: "readiness without PostgreSQL", method: "GET", path: "/readyz", want: 503})
	ck.do(down.URL, call{name: "a route without PostgreSQL", method: "GET", path: "/api/v1/languages", token: alice, want: 503})
}

func readAll(t *testing.T, r io.Reader) []byte {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// webhookAnswers: every webhook route, dry runs first. The endpoint's URL is never
// reached (the dispatcher's guard refuses 127.0.0.1): what the test delivery becomes is
// not the point here.
func webhookAnswers(t *testing.T, e *env, do func(call) []byte) {
	t.Helper()
	admin, alice := tokenOf(e.admin), tokenOf(e.alice)
	hooks := "/admin/v1/webhooks"
	do(call{name: "webhooks", method: "GET", path: hooks, token: admin, want: 200})
	do(call{name: "webhooks as a user", method: "GET", path: hooks, token: alice, want: 403})
	do(call{name: "register a webhook, dry run", method: "POST", path: hooks, token: admin,
		body: []byte(`{"url":"http://127.0.0.1:9/hook","dry_run":true}`), want: 200})
	do(call{name: "register a webhook of no event type", method: "POST", path: hooks, token: admin,
		body: []byte(`{"url":"http://127.0.0.1:9/hook","events":["submission.judged"]}`), want: 400, offSpec: true})
	do(call{name: "register a webhook of no URL", method: "POST", path: hooks, token: admin,
		body: []byte(`{"url":"ftp://example.com/x"}`), want: 400, check: wantInBody("http or https")})
	var created wire.WebhookCreated
	if err := json.Unmarshal(do(call{name: "register a webhook", method: "POST", path: hooks, token: admin,
		body: []byte(`{"url":"http://127.0.0.1:9/hook","events":["submission.finished"],"metadata":{"contest":"c1"}}`),
		want: 201, check: wantInBody(`"secret":"whsec_`)}), &created); err != nil {
		t.Fatal(err)
	}
	one := hooks + "/" + created.Webhook.ID
	none := hooks + "/01890000-0000-7000-8000-000000000000"
	do(call{name: "a webhook", method: "GET", path: one, token: admin, want: 200, check: wantInBody(`"contest":"c1"`)})
	do(call{name: "no such webhook", method: "GET", path: none, token: admin, want: 404})
	do(call{name: "rotate, dry run", method: "POST", path: one + "/rotate?dry_run=true", token: admin, want: 200})
	do(call{name: "rotate", method: "POST", path: one + "/rotate", token: admin, want: 200, check: wantInBody(`"rotated_until"`)})
	do(call{name: "rotate none", method: "POST", path: none + "/rotate", token: admin, want: 404})
	do(call{name: "test, dry run", method: "POST", path: one + "/test", token: admin, body: []byte(`{"dry_run":true}`), want: 200})
	delivery := jsonField(t, do(call{name: "test", method: "POST", path: one + "/test", token: admin, want: 200}), "delivery_id")
	do(call{name: "disable, dry run", method: "POST", path: one + "/disable?dry_run=true", token: admin, want: 200})
	do(call{name: "disable", method: "POST", path: one + "/disable", token: admin, want: 200, check: wantInBody(`"changed":1`)})
	do(call{name: "test a disabled one", method: "POST", path: one + "/test", token: admin, want: 409})
	// A try the dispatcher began before the disabling ends within moments (its dial is
	// refused); a redelivery waits for it.
	e.waitFor(10*time.Second, func() bool {
		_, _, m := e.raw("GET", one+"/deliveries", admin, nil, nil)
		items, _ := m["items"].([]any)
		return len(items) == 1 && items[0].(map[string]any)["in_flight"] == false
	})
	do(call{name: "deliveries", method: "GET", path: one + "/deliveries?limit=10", token: admin, want: 200, check: wantInBody(delivery)})
	do(call{name: "deliveries of a status", method: "GET", path: one + "/deliveries?status=failed", token: admin, want: 200})
	do(call{name: "deliveries of no status", method: "GET", path: one + "/deliveries?status=lost", token: admin, want: 400, offSpec: true})
	do(call{name: "deliveries of none", method: "GET", path: none + "/deliveries", token: admin, want: 404})
	do(call{name: "redeliver, dry run", method: "POST", path: one + "/deliveries/" + delivery + "/redeliver?dry_run=true", token: admin, want: 200})
	do(call{name: "redeliver", method: "POST", path: one + "/deliveries/" + delivery + "/redeliver", token: admin, want: 200})
	do(call{name: "redeliver none", method: "POST", path: one + "/deliveries/01890000-0000-7000-8000-000000000000/redeliver", token: admin, want: 404})
	do(call{name: "enable", method: "POST", path: one + "/enable", token: admin, want: 200, check: wantInBody(`"changed":1`)})
	do(call{name: "remove, dry run", method: "DELETE", path: one + "?dry_run=true", token: admin, want: 200})
	do(call{name: "remove", method: "DELETE", path: one, token: admin, want: 200, check: wantInBody(`"undelivered":1`)})
	do(call{name: "remove it again", method: "DELETE", path: one, token: admin, want: 404})
}
