package api_test

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"oj/core/api/client"
	"oj/core/job"
	"oj/core/wire"
)

func listProblems(t *testing.T, e *env, archived string) []wire.ProblemSummary {
	t.Helper()
	l, err := e.admin.Problems(context.Background(), archived)
	if err != nil {
		t.Fatal(err)
	}
	return l.Items
}

// A problem with submissions is archived: submit and GET /api/v1/problems/{id} answer
// 404 as for an unknown problem, the admin list flags it, a submission queued before
// keeps judging and an old one can be rejudged, and an upload brings it back. A problem
// without submissions is deleted. Dry runs change nothing; every call is audited.
func TestRemoveProblemArchivesOrDeletes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true})
	ctx := context.Background()
	if _, err := e.admin.PutProblem(ctx, "empty", bytes.NewReader([]byte(problemZip("title: Empty\n")))); err != nil {
		t.Fatal(err)
	}
	queued := e.submit(e.alice, "print(1)")

	items := listProblems(t, e, "")
	if len(items) != 2 || items[0].ID != "aplusb" || items[0].Submissions != 1 || items[0].Archived ||
		items[0].Version != 1 || items[0].CaseCount != 3 || items[0].Title != "A+B" || items[0].UpdatedAt.IsZero() ||
		items[1].ID != "empty" || items[1].Submissions != 0 {
		t.Fatalf("problems = %+v", items)
	}

	dry, err := e.admin.RemoveProblem(ctx, "aplusb", true)
	if err != nil || *dry != (wire.ProblemRemoved{DryRun: true, ID: "aplusb", Action: "archived", Submissions: 1}) {
		t.Fatalf("dry removal = %+v %v", dry, err)
	}
	if code, _, _ := e.raw("DELETE", "/api/v1/problems/aplusb?dry_run=yes", e.apienv.AdminToken, nil, nil); code != http.StatusBadRequest {
		t.Fatalf("DELETE with a misspelt dry_run: %d, want 400", code)
	}
	// The same rule for every mutating admin action that takes dry_run in the query.
	if code, _, _ := e.raw("POST", "/admin/v1/problems/aplusb/rejudge?dry_run=ture", e.apienv.AdminToken, nil, nil); code != http.StatusBadRequest {
		t.Fatalf("rejudge with a misspelt dry_run: %d, want 400", code)
	}
	if _, err := e.admin.Problem(ctx, "aplusb"); err != nil {
		t.Fatalf("a dry run (or a bad one) removed the problem: %v", err)
	}

	rm, err := e.admin.RemoveProblem(ctx, "aplusb", false)
	if err != nil || *rm != (wire.ProblemRemoved{ID: "aplusb", Action: "archived", Submissions: 1}) {
		t.Fatalf("removal = %+v %v", rm, err)
	}
	_, err = e.alice.Submit(ctx, wire.SubmitRequest{ProblemID: "aplusb", Language: "python3", Source: "print(2)"}, "")
	if client.StatusOf(err) != http.StatusNotFound {
		t.Fatalf("submit to an archived problem: %v, want 404", err)
	}
	if _, err := e.admin.Problem(ctx, "aplusb"); client.StatusOf(err) != http.StatusNotFound {
		t.Fatalf("GET of an archived problem: %v, want 404", err)
	}
	items = listProblems(t, e, "true")
	if len(items) != 1 || items[0].ID != "aplusb" || !items[0].Archived || items[0].ArchivedAt == nil {
		t.Fatalf("archived problems = %+v", items)
	}
	if items = listProblems(t, e, "false"); len(items) != 1 || items[0].ID != "empty" {
		t.Fatalf("live problems = %+v", items)
	}
	if _, err := e.admin.Problems(ctx, "maybe"); client.StatusOf(err) != http.StatusBadRequest {
		t.Fatalf("archived=maybe: %v, want 400", err)
	}

	// The submission queued before the archive is judged from its pinned package, and
	// can be rejudged, alone or with the whole problem.
	e.apienv.StartWorker(nil)
	first := e.waitTerminal(queued, 20*time.Second)
	if first.State != "finished" || *first.Verdict != "AC" {
		t.Fatalf("submission of an archived problem = %+v", first)
	}
	if r, err := e.admin.RejudgeSubmission(ctx, queued, false); err != nil || r.Rejudged != 1 {
		t.Fatalf("rejudge = %+v %v", r, err)
	}
	e.waitFor(20*time.Second, func() bool {
		s, err := e.admin.Submission(ctx, queued)
		return err == nil && s.Terminal() && s.Attempt > first.Attempt
	})
	if r, err := e.admin.RejudgeProblem(ctx, "aplusb", false); err != nil || r.Rejudged != 1 {
		t.Fatalf("rejudge of the archived problem = %+v %v", r, err)
	}
	if s := e.waitState(queued, job.StateFinished, 20*time.Second); s.Verdict != job.VerdictAC {
		t.Fatalf("rejudged submission = %+v", s)
	}

	rm, err = e.admin.RemoveProblem(ctx, "empty", false)
	if err != nil || *rm != (wire.ProblemRemoved{ID: "empty", Action: "deleted"}) {
		t.Fatalf("removal of empty = %+v %v", rm, err)
	}
	if _, err := e.admin.Problem(ctx, "empty"); client.StatusOf(err) != http.StatusNotFound {
		t.Fatalf("GET of a deleted problem: %v, want 404", err)
	}
	for _, id := range []string{"empty", "nosuch", "Not-An-Id"} {
		if _, err := e.admin.RemoveProblem(ctx, id, false); client.StatusOf(err) != http.StatusNotFound {
			t.Fatalf("removal of %q: %v, want 404", id, err)
		}
	}

	// An upload brings the archived problem back as a new live version.
	p, err := e.admin.PutProblem(ctx, "aplusb", bytes.NewReader([]byte(problemZip("title: A+B again\n"))))
	if err != nil || p.Version != 2 {
		t.Fatalf("re-upload = %+v %v", p, err)
	}
	if items = listProblems(t, e, "all"); len(items) != 1 || items[0].Archived || items[0].Version != 2 {
		t.Fatalf("problems after the re-upload = %+v", items)
	}
	if s := e.waitTerminal(e.submit(e.alice, "print(3)"), 20*time.Second); s.ProblemVersion != 2 || *s.Verdict != "AC" {
		t.Fatalf("submission after the re-upload = %+v", s)
	}

	if got := auditActions(t, e); got["problem_remove"] != 2 || got["problem_remove/dry"] != 1 {
		t.Fatalf("audit = %v", got)
	}
}

// A purge removes dead letters without judging them: the submissions stay dead with
// verdict SE, their trace says who purged them, a dry run counts would_purge only.
func TestPurgeRemovesDeadLetters(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	ctx := context.Background()
	e.judge.Set(func(job.Task, int) (job.Outcome, error) { return job.Outcome{}, errJudge }, 0)
	a, b := e.submit(e.alice, "print(1)"), e.submit(e.bob, "print(2)")
	for _, id := range []string{a, b} {
		if s := e.waitTerminal(id, 20*time.Second); s.State != "dead" {
			t.Fatalf("%s = %+v, want dead", id, s)
		}
	}
	e.judge.Set(acceptAll, 0)

	res, err := e.admin.PurgeDLQ(ctx, wire.PurgeRequest{All: true, DryRun: true})
	if err != nil || *res != (wire.PurgeResult{DryRun: true, Requested: 2, WouldPurge: 2}) {
		t.Fatalf("dry purge = %+v %v", res, err)
	}
	if page, _ := e.admin.DLQ(ctx, 10, ""); page.Total != 2 {
		t.Fatalf("a dry run purged: %+v", page)
	}
	res, err = e.admin.PurgeDLQ(ctx, wire.PurgeRequest{IDs: []string{a}})
	if err != nil || *res != (wire.PurgeResult{Requested: 1, Purged: 1}) {
		t.Fatalf("purge a = %+v %v", res, err)
	}
	s, err := e.admin.Submission(ctx, a)
	if err != nil || s.State != "dead" || *s.Verdict != "SE" {
		t.Fatalf("purged submission = %+v %v", s, err)
	}
	tr, err := e.admin.Trace(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	last := tr.Events[len(tr.Events)-1]
	if tr.DeadLetter != nil || last.Event != "purged" || last.Actor != "admin" || last.Detail == "" {
		t.Fatalf("trace after the purge: dead letter %+v, last event %+v", tr.DeadLetter, last)
	}
	if page, _ := e.admin.DLQ(ctx, 10, ""); page.Total != 1 || page.Items[0].SubmissionID != b {
		t.Fatalf("dead letters after purging a = %+v", page)
	}
	if res, err = e.admin.PurgeDLQ(ctx, wire.PurgeRequest{All: true}); err != nil || res.Purged != 1 {
		t.Fatalf("purge --all = %+v %v", res, err)
	}
	if s, _ := e.admin.Submission(ctx, b); s.State != "dead" {
		t.Fatalf("%s after the purge: %+v", b, s)
	}

	for _, body := range []string{`{}`, `{"ids":["x"]}`, `{"ids":["urn:uuid:` + a + `"]}`, `{"ids":["` + a + `"],"all":true}`, `{"nope":1}`} {
		if code, _, _ := e.raw("POST", "/admin/v1/dlq/purge", e.apienv.AdminToken, []byte(body), nil); code != http.StatusBadRequest {
			t.Fatalf("purge %s: %d, want 400", body, code)
		}
	}
	if got := auditActions(t, e); got["dlq_purge"] != 2 || got["dlq_purge/dry"] != 1 {
		t.Fatalf("audit = %v", got)
	}
}

// The new routes are admin routes: 403 with a user token, 401 without one, and the
// refused calls change nothing.
func TestProblemAndPurgeRoutesNeedAnAdminToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true})
	for _, rt := range [][2]string{{"GET", "/api/v1/problems"}, {"DELETE", "/api/v1/problems/aplusb"},
		{"POST", "/admin/v1/dlq/purge"}} {
		code, _, body := e.raw(rt[0], rt[1], tokenOf(e.alice), []byte(`{"all":true}`), nil)
		if code != http.StatusForbidden || body["error"].(map[string]any)["code"] != "forbidden" {
			t.Errorf("%s %s with a user token: %d %v, want 403", rt[0], rt[1], code, body)
		}
		if code, _, _ := e.raw(rt[0], rt[1], "", []byte(`{"all":true}`), nil); code != http.StatusUnauthorized {
			t.Errorf("%s %s without a token: %d, want 401", rt[0], rt[1], code)
		}
	}
	if items := listProblems(t, e, ""); len(items) != 1 || items[0].Archived {
		t.Fatalf("after refused calls: %+v", items)
	}
	if got := auditActions(t, e); got["problem_remove"]+got["dlq_purge"] != 0 {
		t.Fatalf("refused calls were audited: %v", got)
	}
}
