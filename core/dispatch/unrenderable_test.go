package dispatch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// An event whose stored data cannot be rendered (a legacy row holding "Infinity") is
// sent as its stand-in — its id, type and submission, and why — and the rest of its page
// is delivered: the submission after it reaches the receiver. It is counted.
func TestFanOutDeliversPastAnUnrenderableEvent(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t, nil)
	d, m := h.dispatcher()
	var mu sync.Mutex
	var bodies [][]byte
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
	}))
	defer recv.Close()
	h.settle()
	h.endpoint(recv.URL, nil, nil)
	before := h.submit(nil)
	if _, err := h.db.Exec(context.Background(), `INSERT INTO events (type, reason, submission_id, problem_id, data)
		SELECT 'submission.finished', 'finished', submission_id, problem_id,
		       jsonb_set(jsonb_set(data, '{state}', '"finished"'), '{score}', '"Infinity"')
		  FROM events WHERE submission_id = $1`, before); err != nil {
		t.Fatal(err)
	}
	after := h.submit(nil)
	h.fanOutUntil(d, 3)
	deadline := time.Now().Add(20 * time.Second)
	for h.count(`SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered'`) < 3 {
		if time.Now().After(deadline) {
			t.Fatal("the page's deliveries were not all delivered")
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	var standIn, last struct {
		Type        string          `json:"type"`
		Data        json.RawMessage `json:"data"`
		RenderError string          `json:"render_error"`
	}
	seen := map[string]bool{}
	for _, b := range bodies {
		var ev struct {
			RenderError string `json:"render_error"`
			Data        struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if err := json.Unmarshal(b, &ev); err != nil {
			t.Fatalf("body %s: %v", b, err)
		}
		seen[ev.Data.ID+"/"+map[bool]string{true: "stand-in", false: "rendered"}[ev.RenderError != ""]] = true
		if ev.RenderError != "" {
			_ = json.Unmarshal(b, &standIn)
		} else {
			_ = json.Unmarshal(b, &last)
		}
	}
	if !seen[before+"/rendered"] || !seen[before+"/stand-in"] || !seen[after+"/rendered"] {
		t.Fatalf("received %v, want %s rendered and as a stand-in, and %s", seen, before, after)
	}
	if standIn.Type != "submission.finished" || !strings.Contains(standIn.RenderError, "could not be rendered") ||
		string(standIn.Data) != fmt.Sprintf(`{"id":%q,"problem_id":"aplusb"}`, before) {
		t.Fatalf("stand-in %+v (data %s)", standIn, standIn.Data)
	}
	if got := testutil.ToFloat64(m.WebhookUnrenderable); got != 1 {
		t.Fatalf("oj_webhook_unrenderable_events_total %v, want 1", got)
	}
}
