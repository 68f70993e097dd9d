package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"oj/core/api/apitest"
	"oj/core/job"
	"oj/core/store"
	"oj/core/wire"
)

// since=now returns no event that committed before the call, even one the head had not
// reached yet because an older transaction was still open; that transaction's event,
// committed after the call, comes, and so does every later one.
func TestFeedSinceNowLeavesOutWhatCommittedBefore(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Options{NoWorker: true})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sub := store.NewSubmission{ProblemID: "aplusb", ProblemVersion: 1, Language: "python3", Lane: job.LaneLight,
		Source: "print(1)", TraceID: "t"}
	txA, err := e.DB.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer txA.Rollback(ctx)
	a, err := store.InsertSubmission(ctx, txA, sub) // open across the call
	if err != nil {
		t.Fatal(err)
	}
	b, err := store.Submit(ctx, e.DB, sub) // committed before the call
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.HTTP.URL+"/api/v1/events?since=now", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.AdminToken)
	req.Header.Set("Accept", "application/x-ndjson")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	if !sc.Scan() { // the opening cursor: the call has read its start
		t.Fatalf("the stream ended: %v", sc.Err())
	}
	if err := txA.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := store.Submit(ctx, e.DB, sub)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for len(got) < 2 && sc.Scan() {
		var ev wire.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		if ev.Type != wire.EventQueued {
			continue
		}
		var s wire.Submission
		if err := json.Unmarshal(ev.Data, &s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s.ID)
	}
	if len(got) != 2 || got[0] != a || got[1] != c {
		t.Fatalf("since=now: %v, want [%s %s] (not %s, committed before the call)", got, a, c, b)
	}
}
