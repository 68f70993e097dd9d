package main

import (
	"slices"
	"testing"

	"oj/core/wire"
)

// ojctl submissions: newest first, filtered by state and problem, paged with --cursor; a
// bad state is the server's 400 (exit 1 with its reason).
func TestSubmissionsListsNewestFirstFilteredAndPaged(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first := e.submit("print(1)")
	e.waitTerminal(first)
	dead := e.deadLetter()
	second := e.submit("print(2)")
	e.waitTerminal(second)

	var page wire.SubmissionList
	r := e.ojctl("submissions", "-o", "json")
	wantCode(t, r, 0)
	decode(t, r, &page)
	var ids []string
	for _, s := range page.Items {
		ids = append(ids, s.ID)
	}
	if want := []string{second, dead, first}; !slices.Equal(ids, want) || page.NextCursor != "" {
		t.Fatalf("submissions = %v (next %q), want %v", ids, page.NextCursor, want)
	}

	r = e.ojctl("submissions")
	wantCode(t, r, 0)
	wantIn(t, "table", r.stdout, "SUBMISSION", "VERDICT", first, second, dead, "finished", "AC", "dead", "SE", "3 submissions")

	r = e.ojctl("submissions", "--state", "dead", "-o", "json")
	wantCode(t, r, 0)
	decode(t, r, &page)
	if len(page.Items) != 1 || page.Items[0].ID != dead || *page.Items[0].Verdict != "SE" {
		t.Fatalf("--state dead = %+v", page)
	}
	r = e.ojctl("submissions", "--problem", "nosuch", "-o", "json")
	wantCode(t, r, 0)
	decode(t, r, &page)
	if page.Items == nil || len(page.Items) != 0 {
		t.Fatalf("--problem nosuch = %+v, want an empty list (not null)", page)
	}

	// Two pages of two and one: the table says how to get the next one.
	r = e.ojctl("subs", "--problem", "aplusb", "--limit", "2")
	wantCode(t, r, 0)
	wantIn(t, "first page", r.stdout, second, dead, "2 submissions; next page: --cursor ")
	r = e.ojctl("submissions", "--problem", "aplusb", "--limit", "2", "-o", "json")
	decode(t, r, &page)
	r = e.ojctl("submissions", "--problem", "aplusb", "--limit", "2", "--cursor", page.NextCursor, "-o", "json")
	wantCode(t, r, 0)
	decode(t, r, &page)
	if len(page.Items) != 1 || page.Items[0].ID != first || page.NextCursor != "" {
		t.Fatalf("second page = %+v", page)
	}

	r = e.ojctl("submissions", "--state", "judging")
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, "HTTP 400", "judging")
}
