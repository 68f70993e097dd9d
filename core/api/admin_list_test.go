package api_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
	"testing"

	"oj/core/api/client"
	"oj/core/wire"
)

// listIDs pages through GET /admin/v1/submissions with q and returns every id in order
// and the size of each page.
func listIDs(t *testing.T, c *client.Client, q wire.ListSubmissionsQuery) ([]string, []int) {
	t.Helper()
	var ids []string
	var pages []int
	for {
		page, err := c.Submissions(context.Background(), q)
		if err != nil {
			t.Fatalf("list %+v: %v", q, err)
		}
		pages = append(pages, len(page.Items))
		for _, s := range page.Items {
			ids = append(ids, s.ID)
		}
		if page.NextCursor == "" {
			return ids, pages
		}
		if len(pages) > 100 {
			t.Fatalf("list %+v: more than 100 pages", q)
		}
		q.Cursor = page.NextCursor
	}
}

func reversed(s []string) []string {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

func TestListSubmissionsNewestFirstPagedAndFiltered(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true})
	ctx := context.Background()
	if _, err := e.admin.PutProblem(ctx, "other", strings.NewReader(problemZip("title: Other\n"))); err != nil {
		t.Fatal(err)
	}
	// Nine submissions in this order: seven to aplusb, two to other; three canceled.
	var all, aplusb, other []string
	for i := range 9 {
		if i == 3 || i == 6 {
			res, err := e.bob.Submit(ctx, wire.SubmitRequest{ProblemID: "other", Language: "python3", Source: "print(2)"}, "")
			if err != nil {
				t.Fatal(err)
			}
			all, other = append(all, res.ID()), append(other, res.ID())
			continue
		}
		id := e.submit(e.alice, "print(1)")
		all, aplusb = append(all, id), append(aplusb, id)
	}
	canceled := []string{all[1], all[6], all[7]}
	for _, id := range canceled {
		if _, err := e.admin.Cancel(ctx, id, false); err != nil {
			t.Fatal(err)
		}
	}
	var queued []string
	for _, id := range all {
		if !slices.Contains(canceled, id) {
			queued = append(queued, id)
		}
	}

	t.Run("newest first, summaries only", func(t *testing.T) {
		page, err := e.admin.Submissions(ctx, wire.ListSubmissionsQuery{})
		if err != nil {
			t.Fatal(err)
		}
		got := make([]string, len(page.Items))
		for i, s := range page.Items {
			got[i] = s.ID
		}
		if !slices.Equal(got, reversed(all)) || page.NextCursor != "" {
			t.Fatalf("ids = %v next %q, want %v and no cursor", got, page.NextCursor, reversed(all))
		}
		s := page.Items[len(page.Items)-1-1] // all[1], canceled
		if s.State != "canceled" || s.ProblemID != "aplusb" || s.Language != "python3" || s.Attempt != 1 ||
			s.Verdict != nil || s.CreatedAt.IsZero() || s.FinishedAt == nil {
			t.Fatalf("summary of a canceled submission = %+v", s)
		}
		code, _, body := e.raw("GET", "/admin/v1/submissions?limit=1", tokenOf(e.admin), nil, nil)
		item := body["items"].([]any)[0].(map[string]any)
		if code != http.StatusOK || item["source"] != nil || item["cases"] != nil || item["compile_output"] != nil {
			t.Fatalf("GET /admin/v1/submissions?limit=1: %d %v, want a summary without source or cases", code, body)
		}
		if _, ok := item["verdict"]; !ok {
			t.Fatalf("summary lacks verdict (null until judged): %v", item)
		}
	})

	t.Run("three pages through the cursor", func(t *testing.T) {
		ids, pages := listIDs(t, e.admin, wire.ListSubmissionsQuery{Limit: 3})
		if !slices.Equal(ids, reversed(all)) || !slices.Equal(pages, []int{3, 3, 3}) {
			t.Fatalf("paged ids = %v in pages %v, want %v in 3 pages of 3", ids, pages, reversed(all))
		}
		ids, pages = listIDs(t, e.admin, wire.ListSubmissionsQuery{Limit: 4})
		if !slices.Equal(ids, reversed(all)) || !slices.Equal(pages, []int{4, 4, 1}) {
			t.Fatalf("paged ids = %v in pages %v, want %v in pages of 4, 4, 1", ids, pages, reversed(all))
		}
	})

	t.Run("state filter", func(t *testing.T) {
		ids, _ := listIDs(t, e.admin, wire.ListSubmissionsQuery{State: "canceled", Limit: 2})
		if !slices.Equal(ids, reversed(canceled)) {
			t.Fatalf("canceled = %v, want %v", ids, reversed(canceled))
		}
		ids, _ = listIDs(t, e.admin, wire.ListSubmissionsQuery{State: "queued", Limit: 2})
		if !slices.Equal(ids, reversed(queued)) {
			t.Fatalf("queued = %v, want %v", ids, reversed(queued))
		}
		if ids, _ := listIDs(t, e.admin, wire.ListSubmissionsQuery{State: "finished"}); len(ids) != 0 {
			t.Fatalf("finished = %v, want none", ids)
		}
	})

	t.Run("problem filter", func(t *testing.T) {
		ids, _ := listIDs(t, e.admin, wire.ListSubmissionsQuery{ProblemID: "aplusb", Limit: 2})
		if !slices.Equal(ids, reversed(aplusb)) {
			t.Fatalf("aplusb = %v, want %v", ids, reversed(aplusb))
		}
		ids, _ = listIDs(t, e.admin, wire.ListSubmissionsQuery{ProblemID: "other"})
		if !slices.Equal(ids, reversed(other)) {
			t.Fatalf("other = %v, want %v", ids, reversed(other))
		}
		ids, _ = listIDs(t, e.admin, wire.ListSubmissionsQuery{ProblemID: "other", State: "canceled"})
		if !slices.Equal(ids, []string{all[6]}) {
			t.Fatalf("other and canceled = %v, want %v", ids, []string{all[6]})
		}
		if ids, _ := listIDs(t, e.admin, wire.ListSubmissionsQuery{ProblemID: "nosuch"}); len(ids) != 0 {
			t.Fatalf("unknown problem = %v, want none", ids)
		}
	})

	// Submissions made in the same instant are ordered by id and no page boundary loses
	// or repeats one of them.
	t.Run("ties on created_at", func(t *testing.T) {
		if _, err := e.db.Exec(ctx, `UPDATE submissions SET created_at = (SELECT created_at FROM submissions WHERE id = $1)
			WHERE id = ANY($2::uuid[])`, all[2], all[2:7]); err != nil {
			t.Fatal(err)
		}
		want, _ := listIDs(t, e.admin, wire.ListSubmissionsQuery{Limit: 500})
		if len(want) != len(all) {
			t.Fatalf("%d listed, want %d", len(want), len(all))
		}
		for _, limit := range []int{1, 2, 3} {
			if got, _ := listIDs(t, e.admin, wire.ListSubmissionsQuery{Limit: limit}); !slices.Equal(got, want) {
				t.Fatalf("limit %d: %v, want %v", limit, got, want)
			}
		}
	})

	t.Run("a user token is refused", func(t *testing.T) {
		_, err := e.alice.Submissions(ctx, wire.ListSubmissionsQuery{})
		if client.StatusOf(err) != http.StatusForbidden {
			t.Fatalf("as a user: %v, want 403", err)
		}
	})

	t.Run("bad input is a 400", func(t *testing.T) {
		forged := base64.RawURLEncoding.EncodeToString([]byte("2025-01-01T00:00:00Z,not-a-uuid"))
		for name, query := range map[string]string{
			"unknown state":      "state=judging",
			"state in capitals":  "state=QUEUED",
			"limit not a number": "limit=ten",
			"negative limit":     "limit=-1",
			"zero limit":         "limit=0",
			"cursor not base64":  "cursor=%25%25%25",
			"cursor of garbage":  "cursor=" + base64.RawURLEncoding.EncodeToString([]byte("garbage")),
			"forged cursor":      "cursor=" + forged,
		} {
			code, _, body := e.raw("GET", "/admin/v1/submissions?"+query, tokenOf(e.admin), nil, nil)
			if code != http.StatusBadRequest || body["error"].(map[string]any)["code"] != "bad_request" {
				t.Errorf("%s (?%s): %d %v, want 400 bad_request", name, query, code, body)
			}
		}
		// Over the maximum is cut to it, as the other admin lists do.
		page, err := e.admin.Submissions(ctx, wire.ListSubmissionsQuery{Limit: 100_000})
		if err != nil || len(page.Items) != len(all) {
			t.Fatalf("limit 100000: %+v %v", page, err)
		}
	})
}
