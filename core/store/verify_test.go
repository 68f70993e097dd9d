package store_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"oj/core/job"
	"oj/core/store"
	"oj/core/testenv"
)

// A verification's submissions count for no user: they have no owner (so no user's live
// count or fair-queue tag moves), they are not in the submission lists nor in the
// results feed unless asked for (purpose verify or all), and each event says its purpose.
func TestVerificationSubmissionsCountForNoUser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.DB(t)
	sha := strings.Repeat("ab", 32)
	if _, err := store.CreateProblemVersion(ctx, db, store.ProblemVersion{ProblemID: "sum", SHA256: sha, Title: "Sum",
		TimeLimitMS: 1000, MemoryLimitMB: 256, CaseCount: 1, CreatedBy: "admin", Meta: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	_, alice, err := store.CreateTokenWith(ctx, db, store.NewToken{Name: "alice", Role: "user"})
	if err != nil {
		t.Fatal(err)
	}
	before, err := store.ReadFeedBounds(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	mine, err := store.Submit(ctx, db, store.NewSubmission{OwnerID: &alice.ID, ProblemID: "sum", ProblemVersion: 1,
		Language: "python3", Lane: job.LaneLight, Source: "print(1)", TraceID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	vid, made, err := store.CreateVerification(ctx, db, store.NewVerification{ProblemID: "sum", Version: 1, SHA256: sha,
		RequestedBy: "admin", TraceID: "t", RunLimitMS: 1500, Entries: []store.VerifyEntry{
			{Source: "submissions/accepted/a.py", Language: "python3", Expect: []string{"AC"}, Label: "accepted", Code: "print(3)"},
			{Source: "submissions/wrong_answer/w.py", Language: "python3", Expect: []string{"WA"}, Label: "wrong_answer", Code: "print(4)"},
			{Source: "submissions/accepted/a.kt", Expect: []string{"AC"}, Label: "accepted", Note: "no such language"},
		}})
	if err != nil || made != 2 {
		t.Fatalf("create verification: %d made, %v", made, err)
	}
	v, err := store.LatestVerification(ctx, db, "sum", 1)
	if err != nil || v.ID != vid || v.State != store.VerifyRunning || len(v.Entries) != 3 {
		t.Fatalf("latest verification %+v %v", v, err)
	}
	var ids []string
	for _, e := range v.Entries {
		if e.SubmissionID != "" {
			ids = append(ids, e.SubmissionID)
		}
	}
	if n := count(t, db, `SELECT count(*) FROM submissions WHERE id = ANY($1::uuid[]) AND owner_id IS NULL
		AND purpose = 'verify' AND lane = 'rejudge' AND time_limit_ms = 1500`, ids); n != 2 {
		t.Fatalf("%d of 2 verification submissions ownerless, on the rejudge lane, with the run limit", n)
	}
	if n := count(t, db, `SELECT count(*) FROM outbox WHERE submission_id = ANY($1::uuid[]) AND owner_key = 0`, ids); n != 2 {
		t.Fatalf("%d of 2 outbox rows outside every user's fair queue", n)
	}
	if n := count(t, db, `SELECT count(*) FROM submissions WHERE owner_id = $1 AND state IN ('queued', 'running')`, alice.ID); n != 1 {
		t.Fatalf("alice's live count %d, want her own 1", n)
	}

	list := func(purpose string) []string {
		t.Helper()
		items, err := store.ListSubmissions(ctx, db, store.SubmissionFilter{Purpose: purpose, ProblemID: "sum", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range items {
			out = append(out, it.Purpose)
		}
		return out
	}
	if got := list(""); len(got) != 1 || got[0] != store.PurposeUser {
		t.Fatalf("the default list %v, want alice's submission only", got)
	}
	if got := list(store.PurposeVerify); len(got) != 2 || got[0] != store.PurposeVerify {
		t.Fatalf("the verification list %v", got)
	}
	if got := list(store.PurposeAll); len(got) != 3 {
		t.Fatalf("the whole list %v", got)
	}
	if _, err := store.ListSubmissions(ctx, db, store.SubmissionFilter{Purpose: "robots", Limit: 10}); err == nil {
		t.Fatal("an unknown purpose listed")
	}

	feed := func(purpose string, n int) []string {
		t.Helper()
		page := feedUntil(t, db, before.Head, store.FeedFilter{Purpose: purpose, ProblemID: "sum", Types: []string{"submission.queued"}}, n)
		var out []string
		for _, e := range page.Events {
			var data struct {
				Purpose string `json:"purpose"`
			}
			if err := json.Unmarshal(e.Data, &data); err != nil {
				t.Fatal(err)
			}
			out = append(out, e.SubmissionID+"/"+data.Purpose)
		}
		return out
	}
	// The problem.version event precedes before.Head; alice's submitted event is the
	// default feed's only one, the verification's two are there when asked for.
	if got := feed("", 1); len(got) != 1 || got[0] != mine+"/user" {
		t.Fatalf("the default feed %v, want alice's submission only", got)
	}
	if got := feed(store.PurposeVerify, 2); len(got) != 2 || got[0] != ids[0]+"/verify" || got[1] != ids[1]+"/verify" {
		t.Fatalf("the verification feed %v, want %v", got, ids)
	}
	if got := feed(store.PurposeAll, 3); len(got) != 3 {
		t.Fatalf("the whole feed %v", got)
	}
	if _, err := store.ReadFeed(ctx, db, before.Head, store.FeedFilter{Purpose: "robots"}, 10); err == nil {
		t.Fatal("an unknown purpose read the feed")
	}
}
