package store_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"oj/core/job"
	"oj/core/store"
	"oj/core/testenv"
)

// fullSort is a Sort node of a plan (not an Incremental Sort, not a "Sort Key" line).
var fullSort = regexp.MustCompile(`(?m)^\s*(->\s+)?Sort\s+\(`)

// The admin list stays bounded on a long history: with every filter (and with a cursor)
// PostgreSQL walks an index in the list's order and stops after LIMIT rows, instead of
// reading the table and sorting it.
func TestListSubmissionsWalksAnIndex(t *testing.T) {
	t.Parallel()
	db := testenv.DB(t)
	ctx := context.Background()
	if _, err := db.Exec(ctx, `INSERT INTO submissions (id, problem_id, problem_version, language, lane, source,
		    state, attempt, lease_owner, lease_until, trace_id, created_at)
		SELECT gen_random_uuid(), 'p' || (i % 50), 1, 'python3', 'light', 'print(1)',
		       (ARRAY['finished', 'finished', 'finished', 'dead', 'canceled', 'queued', 'running'])[i % 7 + 1]::submission_state,
		       1, CASE WHEN i % 7 = 6 THEN 'w' END, CASE WHEN i % 7 = 6 THEN now() END, 't',
		       now() - i * interval '1 second'
		  FROM generate_series(1, 60000) AS i`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, `ANALYZE submissions`); err != nil {
		t.Fatal(err)
	}
	page, err := store.ListSubmissions(ctx, db, store.SubmissionFilter{Limit: 51})
	if err != nil || len(page) != 51 {
		t.Fatalf("first page: %d rows, %v", len(page), err)
	}
	after, afterID := page[50].CreatedAt, page[50].ID
	// A common state may as well be found by walking the newest-first index and skipping
	// the others (the planner's choice); a rare one needs its own index.
	cases := []struct {
		name    string
		f       store.SubmissionFilter
		indexes []string
	}{
		{"everything", store.SubmissionFilter{}, []string{"submissions_recent"}},
		{"common state", store.SubmissionFilter{State: job.StateFinished}, []string{"submissions_state_recent", "submissions_recent"}},
		{"rare state", store.SubmissionFilter{State: job.StateDead}, []string{"submissions_state_recent"}},
		{"problem", store.SubmissionFilter{ProblemID: "p7"}, []string{"submissions_problem"}},
	}
	for _, c := range cases {
		for _, cursor := range []bool{false, true} {
			f := c.f
			f.Limit = 51
			if cursor {
				f.AfterCreatedAt, f.AfterID = after, afterID
			}
			q, args, err := store.ListSubmissionsSQL(f)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := db.Query(ctx, "EXPLAIN "+q, args...)
			if err != nil {
				t.Fatal(err)
			}
			var plan []string
			for rows.Next() {
				var line string
				if err := rows.Scan(&line); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, line)
			}
			rows.Close()
			text := strings.Join(plan, "\n")
			used := slices.ContainsFunc(c.indexes, func(ix string) bool { return strings.Contains(text, "Index Scan using "+ix+" ") })
			// The problem index is (problem_id, created_at DESC): ties on created_at are
			// put in id order by an incremental sort over the index's order, never a full sort.
			if !used || fullSort.MatchString(text) || strings.Contains(text, "Seq Scan") {
				t.Errorf("%s (cursor %v): want a walk of %v without a full sort, plan:\n%s", c.name, cursor, c.indexes, text)
			}
		}
	}
	// Paging still returns every row of a filter exactly once.
	seen := map[string]bool{}
	f := store.SubmissionFilter{State: job.StateDead, Limit: 1000}
	for {
		page, err := store.ListSubmissions(ctx, db, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range page {
			if seen[s.ID] || s.State != job.StateDead {
				t.Fatalf("%s listed twice or in state %s", s.ID, s.State)
			}
			seen[s.ID] = true
		}
		if len(page) < f.Limit {
			break
		}
		f.AfterCreatedAt, f.AfterID = page[len(page)-1].CreatedAt, page[len(page)-1].ID
	}
	if want := count(t, db, `SELECT count(*) FROM submissions WHERE state = 'dead'`); len(seen) != want {
		t.Fatalf("%d dead submissions paged through, want %d", len(seen), want)
	}
}
