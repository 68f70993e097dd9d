package e2e_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"oj/core/api/client"
	"oj/core/wire"
)

// hugeScoreValidator accepts every output and gives the case a score of 1e302: two such
// cases in a group without a range once summed to +Inf.
const hugeScoreValidator = `#include <stdio.h>
int main(int argc, char **argv) {
	char p[4096];
	snprintf(p, sizeof p, "%sscore.txt", argv[3]);
	FILE *f = fopen(p, "w");
	if (!f) return 1;
	fprintf(f, "1e302\n");
	fclose(f);
	return 42;
}
`

// polygonWithPoints is a Polygon package whose second test is worth points.
func polygonWithPoints(points string) map[string]string {
	xml := `<?xml version="1.0" encoding="utf-8"?>
<problem revision="1" short-name="pts">
  <names><name language="english" value="Points"/></names>
  <judging input-file="" output-file="">
    <testset name="tests">
      <time-limit>1000</time-limit><memory-limit>67108864</memory-limit><test-count>2</test-count>
      <input-path-pattern>tests/%02d</input-path-pattern><answer-path-pattern>tests/%02d.a</answer-path-pattern>
      <tests><test method="manual" points="0"/><test method="manual" points="` + points + `"/></tests>
    </testset>
  </judging>
  <files><resources><file path="files/testlib.h" type="h.g++"/></resources></files>
  <assets><checker name="std::wcmp.cpp" type="testlib"><source path="files/check.cpp" type="cpp.g++17"/></checker></assets>
</problem>
`
	return map[string]string{"pts/problem.xml": xml, "pts/tests/01": "1\n", "pts/tests/01.a": "1\n", "pts/tests/02": "2\n",
		"pts/tests/02.a": "2\n", "pts/files/check.cpp": "#include \"testlib.h\"\nint main() {}\n", "pts/files/testlib.h": "#pragma once\n"}
}

// TestScoresPastTheBoundEndToEnd: a Polygon package with points="1e308" is refused at
// upload; a Kattis scoring package whose validator writes score.txt of 1e302 on two cases
// judges SE with the reason, never a stored +Inf; and an event row already holding
// "Infinity" (written before scores were bounded) stops neither the feed nor the webhooks:
// a submission finished after it reaches a feed follower and a webhook receiver.
func TestScoresPastTheBoundEndToEnd(t *testing.T) {
	s := newSystem(t, 2)
	admin := withBuilds(t, s)
	ctx := context.Background()

	_, aerr := put(admin, "pts", polygonWithPoints("1e308"))
	if aerr == nil || aerr.Status != http.StatusBadRequest || !strings.Contains(aerr.Message, `"problem.xml": test 2: points "1e308"`) {
		t.Fatalf("upload of points=\"1e308\": %+v", aerr)
	}

	var mu sync.Mutex
	var received []wire.Event
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev wire.Event
		b, _ := io.ReadAll(r.Body)
		if json.Unmarshal(b, &ev) == nil {
			mu.Lock()
			received = append(received, ev)
			mu.Unlock()
		}
	}))
	defer recv.Close()
	if _, err := admin.CreateWebhook(ctx, wire.WebhookCreateRequest{URL: recv.URL, Events: []string{wire.EventFinished}}); err != nil {
		t.Fatal(err)
	}

	files := map[string]string{
		"problem.yaml":                   "name: Huge\ntype: scoring\nvalidation: custom score\nlimits:\n  time_limit: 2\n",
		"data/secret/testdata.yaml":      "on_reject: continue\n",
		"data/secret/1.in":               "1\n",
		"data/secret/1.ans":              "1\n",
		"data/secret/2.in":               "2\n",
		"data/secret/2.ans":              "2\n",
		"output_validators/v/validate.c": hugeScoreValidator,
		"problem_statement/problem.tex":  "\\problemname{Huge}\n",
	}
	if _, aerr := put(admin, "huge", files); aerr != nil {
		t.Fatalf("upload of the scoring package: %+v", aerr)
	}
	submit := func(source string) string {
		res, err := admin.Submit(ctx, wire.SubmitRequest{ProblemID: "huge", Language: "python3", Source: source}, "")
		if err != nil {
			t.Fatal(err)
		}
		return res.ID()
	}
	first := submit("print(input())\n")
	sub := s.waitAPI(t, admin, first)
	if sub.Verdict == nil || *sub.Verdict != "SE" || sub.Score == nil || *sub.Score != 0 ||
		!strings.Contains(sub.Error, "validator wrote a score.txt past oj's bound") {
		t.Fatalf("score.txt of 1e302: %+v", sub)
	}
	var finite bool
	if err := s.db.QueryRow(ctx, `SELECT score = 0 FROM submissions WHERE id = $1`, first).Scan(&finite); err != nil || !finite {
		t.Fatalf("stored score is not 0: %v", err)
	}

	// A row from before the bound: the finished event of first, its score "Infinity".
	if _, err := s.db.Exec(ctx, `INSERT INTO events (type, reason, submission_id, problem_id, data)
		SELECT type, reason, submission_id, problem_id, jsonb_set(data, '{score}', '"Infinity"')
		  FROM events WHERE submission_id = $1 AND type = 'submission.finished'`, first); err != nil {
		t.Fatal(err)
	}
	after := submit("import sys\nprint(sys.stdin.read().strip())\n")
	s.waitAPI(t, admin, after)

	refOf := func(ev wire.Event) string {
		var d struct{ ID string }
		_ = json.Unmarshal(ev.Data, &d)
		return d.ID
	}
	deadline := time.Now().Add(time.Minute)
	for {
		var standIn, reached bool
		if _, err := admin.Feed(ctx, client.FeedQuery{Types: []string{wire.EventFinished}}, func(ev wire.Event) error {
			standIn = standIn || (ev.RenderError != "" && refOf(ev) == first)
			reached = reached || (standIn && ev.RenderError == "" && refOf(ev) == after)
			return nil
		}); err != nil {
			t.Fatalf("the feed ended with %v", err)
		}
		if reached {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the feed did not deliver the stand-in and the submission after it")
		}
		time.Sleep(100 * time.Millisecond)
	}
	for {
		mu.Lock()
		var standIn, reached bool
		for _, ev := range received {
			standIn = standIn || (ev.RenderError != "" && refOf(ev) == first)
			reached = reached || (ev.RenderError == "" && refOf(ev) == after)
		}
		mu.Unlock()
		if standIn && reached {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the webhook receiver got %d events, not the stand-in and the submission after it", len(received))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
