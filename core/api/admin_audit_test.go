package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"

	"oj/core/job"
)

// auditMatch runs one admin action through HTTP and holds its audit row to its answer:
// the same dry_run, and counts that are the answer's fields but dry_run and those that
// echo a parameter (echo: the answer's field → the audit row's param). It returns the
// answer.
func (e *env) auditMatch(t *testing.T, method, path, body string, echo map[string]string) map[string]any {
	t.Helper()
	code, _, answer := e.raw(method, path, tokenOf(e.admin), []byte(body), nil)
	if code != http.StatusOK {
		t.Fatalf("%s %s %s: %d %v", method, path, body, code, answer)
	}
	entries, err := e.admin.Audit(context.Background(), 1)
	if err != nil || len(entries) != 1 {
		t.Fatalf("audit: %v %v", entries, err)
	}
	row := entries[0]
	if row.DryRun != answer["dry_run"] {
		t.Fatalf("%s %s: answer's dry_run %v, audit row's %v", method, path, answer["dry_run"], row.DryRun)
	}
	want := map[string]any{}
	for k, v := range answer {
		if param, ok := echo[k]; ok {
			if row.Params[param] != v {
				t.Fatalf("%s %s: answer's %s %v, audit row's param %s %v", method, path, k, v, param, row.Params[param])
			}
			continue
		}
		if k != "dry_run" {
			want[k] = v
		}
	}
	// Both went through JSON: numbers are float64 on each side.
	got := map[string]any{}
	b, _ := json.Marshal(row.Counts)
	_ = json.Unmarshal(b, &got)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s %s %s:\n answer    %v\n audit row %v (action %s, dry run %v)", method, path, body, want, got, row.Action, row.DryRun)
	}
	// Of each done count and its would_* twin, the one that does not fit the mode is 0.
	for done, would := range twins {
		if _, ok := answer[done]; !ok {
			continue
		}
		if zero := map[bool]string{true: done, false: would}[row.DryRun]; answer[zero] != float64(0) {
			t.Fatalf("%s %s: dry run %v, yet %s is %v: %v", method, path, row.DryRun, zero, answer[zero], answer)
		}
	}
	return answer
}

// twins are the done counts of the admin actions' answers and their dry-run twins.
var twins = map[string]string{"reclaimed": "would_reclaim", "replayed": "would_replay", "purged": "would_purge",
	"rejudged": "would_rejudge", "canceled": "would_cancel", "removed": "would_remove"}

// For every admin action, a dry run and a real one: the audit row carries the counts
// the API answered, would_* included (a dry run's row never says it did what it would
// have done), and a real run's its done counts.
func TestAuditRowsCarryTheAnswersCounts(t *testing.T) {
	t.Parallel()
	// All at once: a consumer that reads and never claims holds its entries, and fair
	// release gives a lane no more than its workers hold.
	e := newEnv(t, envOpts{noWorker: true, allAtOnce: true})
	ctx := context.Background()
	e.judge.Set(byMarker, 0)
	adm := "/admin/v1/"
	count := func(answer map[string]any, field string) float64 { n, _ := answer[field].(float64); return n }

	// Reclaim: two queued submissions taken by a consumer that is gone.
	first, second := e.submit(e.alice, "print(1)"), e.submit(e.alice, "print(2)")
	taken := 0
	e.waitFor(10*time.Second, func() bool {
		es, err := e.streams.Read(ctx, job.LaneLight, "gone", 10, 10*time.Millisecond)
		taken += len(es)
		return err == nil && taken == 2
	})
	reclaim := `{"lane":"light","min_idle_ms":0`
	if a := e.auditMatch(t, "POST", adm+"reclaim", reclaim+`,"dry_run":true}`, nil); count(a, "would_reclaim") != 2 {
		t.Fatalf("dry reclaim = %v", a)
	}
	if a := e.auditMatch(t, "POST", adm+"reclaim", reclaim+`}`, nil); count(a, "reclaimed") != 2 {
		t.Fatalf("reclaim = %v", a)
	}

	// Cancel, in the body and in the query.
	if a := e.auditMatch(t, "POST", adm+"submissions/"+second+"/cancel?dry_run=true", "", nil); count(a, "would_cancel") != 1 {
		t.Fatalf("dry cancel = %v", a)
	}
	if a := e.auditMatch(t, "POST", adm+"submissions/"+second+"/cancel", `{"dry_run":false}`, nil); count(a, "canceled") != 1 {
		t.Fatalf("cancel = %v", a)
	}

	// Trim: the entries reclaim acknowledged go.
	trimEcho := map[string]string{"strategy": "strategy"}
	dry := e.auditMatch(t, "POST", adm+"trim", `{"strategy":"safe","dry_run":true}`, trimEcho)
	if a := e.auditMatch(t, "POST", adm+"trim", `{"strategy":"safe"}`, trimEcho); count(a, "removed") != count(dry, "would_remove") ||
		count(a, "removed") == 0 {
		t.Fatalf("trim = %v after the dry run %v", a, dry)
	}

	// Dead letters to replay and purge; the first submission judged, to rejudge.
	e.apienv.StartWorker(nil)
	replay, purge := e.submit(e.alice, "die"), e.submit(e.alice, "die")
	e.waitTerminal(replay, 30*time.Second)
	e.waitTerminal(purge, 30*time.Second)
	e.waitTerminal(first, 30*time.Second)
	for _, c := range []struct{ path, id, would, done string }{
		{"dlq/replay", replay, "would_replay", "replayed"},
		{"dlq/purge", purge, "would_purge", "purged"},
	} {
		body := `{"ids":["` + c.id + `"]`
		if a := e.auditMatch(t, "POST", adm+c.path, body+`,"dry_run":true}`, nil); count(a, c.would) != 1 {
			t.Fatalf("dry %s = %v", c.path, a)
		}
		if a := e.auditMatch(t, "POST", adm+c.path, body+`}`, nil); count(a, c.done) != 1 {
			t.Fatalf("%s = %v", c.path, a)
		}
	}

	// Rejudges: one submission, then the problem's judged ones.
	if a := e.auditMatch(t, "POST", adm+"submissions/"+first+"/rejudge", `{"dry_run":true}`, nil); count(a, "would_rejudge") != 1 {
		t.Fatalf("dry rejudge = %v", a)
	}
	if a := e.auditMatch(t, "POST", adm+"submissions/"+first+"/rejudge", "", nil); count(a, "rejudged") != 1 {
		t.Fatalf("rejudge = %v", a)
	}
	dry = e.auditMatch(t, "POST", adm+"problems/aplusb/rejudge?dry_run=1", "", nil)
	if a := e.auditMatch(t, "POST", adm+"problems/aplusb/rejudge", "", nil); count(dry, "would_rejudge") == 0 ||
		count(a, "rejudged") == 0 {
		t.Fatalf("problem rejudge = %v after the dry run %v", a, dry)
	}

	// Removing the problem: it has submissions, so it is archived.
	removeEcho := map[string]string{"id": "problem_id"}
	if a := e.auditMatch(t, "DELETE", "/api/v1/problems/aplusb?dry_run=true", "", removeEcho); a["action"] != "archived" {
		t.Fatalf("dry removal = %v", a)
	}
	e.auditMatch(t, "DELETE", "/api/v1/problems/aplusb", "", removeEcho)
	if got := auditActions(t, e); len(got) != 17 {
		t.Fatalf("audit rows by action = %v, want 8 actions in both modes and the upload", got)
	}
}
