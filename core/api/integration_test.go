package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"oj/core/api"
	"oj/core/api/client"
	"oj/core/job"
	"oj/core/wire"
)

// Caller metadata is checked, stored, part of the idempotency comparison, echoed and a
// filter of the lists.
func TestSubmissionMetadata(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	ctx := context.Background()
	meta := map[string]string{"contest": "icpc-2026", "user": "42", "team.name": "Ünïcode ok"}
	res, err := e.alice.Submit(ctx, wire.SubmitRequest{ProblemID: "aplusb", Language: "python3", Source: "print(3)", Metadata: meta}, "k1")
	if err != nil {
		t.Fatal(err)
	}
	id := res.ID()
	sub := e.waitTerminal(id, 20*time.Second)
	if sub.Metadata["contest"] != "icpc-2026" || sub.Metadata["team.name"] != "Ünïcode ok" || len(sub.Metadata) != 3 {
		t.Fatalf("GET metadata = %v", sub.Metadata)
	}
	// The same key with other metadata is another request.
	_, err = e.alice.Submit(ctx, wire.SubmitRequest{ProblemID: "aplusb", Language: "python3", Source: "print(3)",
		Metadata: map[string]string{"contest": "other"}}, "k1")
	if client.StatusOf(err) != http.StatusUnprocessableEntity {
		t.Fatalf("same key, other metadata: %v, want 422", err)
	}
	if r, err := e.alice.Submit(ctx, wire.SubmitRequest{ProblemID: "aplusb", Language: "python3", Source: "print(3)", Metadata: meta}, "k1"); err != nil || r.ID() != id {
		t.Fatalf("same key, same metadata: %+v %v", r, err)
	}
	plain := e.submit(e.alice, "print(3)")
	e.waitTerminal(plain, 20*time.Second)
	if s, err := e.alice.Submission(ctx, plain); err != nil || s.Metadata == nil || len(s.Metadata) != 0 {
		t.Fatalf("a submission without metadata: %+v %v (want {})", s, err)
	}

	list, err := e.admin.Submissions(ctx, wire.ListSubmissionsQuery{Metadata: map[string]string{"contest": "icpc-2026"}})
	if err != nil || len(list.Items) != 1 || list.Items[0].ID != id || list.Items[0].Owner != "alice" {
		t.Fatalf("admin list by metadata = %+v %v", list, err)
	}
	if list, err := e.admin.Submissions(ctx, wire.ListSubmissionsQuery{Owner: "bob"}); err != nil || len(list.Items) != 0 {
		t.Fatalf("admin list by an owner without submissions = %+v %v", list, err)
	}

	for _, c := range []struct {
		name string
		meta map[string]string
		want string
	}{
		{"a key with capitals", map[string]string{"Contest": "x"}, `metadata key "Contest"`},
		{"an empty key", map[string]string{"": "x"}, `metadata key ""`},
		{"a long value", map[string]string{"user": strings.Repeat("x", 257)}, `metadata "user": the value is 257 bytes, at most 256`},
		{"a control character", map[string]string{"user": "a\nb"}, `metadata "user": the value holds a control character`},
		{"too many keys", func() map[string]string {
			m := map[string]string{}
			for i := range 17 {
				m[string(rune('a'+i))] = "x"
			}
			return m
		}(), "metadata: 17 keys, at most 16"},
	} {
		_, err := e.alice.Submit(ctx, wire.SubmitRequest{ProblemID: "aplusb", Language: "python3", Source: "x", Metadata: c.meta}, "")
		if client.StatusOf(err) != http.StatusBadRequest || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want 400 with %q", c.name, err, c.want)
		}
	}
}

// A user token lists its own submissions; a reader reads every submission (as their
// owners see them), the problems and the feed, and changes nothing; tokens carry their own
// submit bounds; admins create, list and revoke tokens over the API, audited.
func TestTokensAndRoles(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{limits: func(l *api.Limits) { l.UserRate, l.UserBurst = 100, 100 }})
	ctx := context.Background()
	a := e.submit(e.alice, "print(3)")
	b := e.submit(e.bob, "print(3)")
	e.waitTerminal(a, 20*time.Second)
	e.waitTerminal(b, 20*time.Second)

	mine, err := e.alice.MySubmissions(ctx, wire.ListSubmissionsQuery{})
	if err != nil || len(mine.Items) != 1 || mine.Items[0].ID != a {
		t.Fatalf("alice's own list = %+v %v", mine, err)
	}

	created, err := e.admin.CreateToken(ctx, wire.TokenCreateRequest{Name: "site", Role: "reader"})
	if err != nil || created.Secret == "" || created.Token.Role != "reader" || created.Token.CreatedBy != "admin" {
		t.Fatalf("create a reader = %+v %v", created, err)
	}
	reader := client.New(e.http.URL, created.Secret)
	if s, err := reader.Submission(ctx, b); err != nil || s.ID != b {
		t.Fatalf("a reader reads bob's submission: %+v %v", s, err)
	}
	if all, err := reader.MySubmissions(ctx, wire.ListSubmissionsQuery{Owner: "bob"}); err != nil || len(all.Items) != 1 || all.Items[0].ID != b {
		t.Fatalf("a reader lists bob's submissions: %+v %v", all, err)
	}
	if _, err := reader.Problems(ctx, ""); err != nil {
		t.Fatalf("a reader lists the problems: %v", err)
	}
	if _, err := reader.Submit(ctx, wire.SubmitRequest{ProblemID: "aplusb", Language: "python3", Source: "print(3)"}, ""); client.StatusOf(err) != http.StatusForbidden ||
		!strings.Contains(err.Error(), "changes nothing") {
		t.Fatalf("a reader submits: %v, want 403", err)
	}
	if _, err := reader.Cancel(ctx, a, true); client.StatusOf(err) != http.StatusForbidden {
		t.Fatalf("a reader cancels: %v, want 403", err)
	}
	if _, err := e.alice.Feed(ctx, client.FeedQuery{}, func(wire.Event) error { return nil }); client.StatusOf(err) != http.StatusForbidden {
		t.Fatalf("a user reads the feed: %v, want 403", err)
	}

	// A site's own bounds: one submit a second in bursts of 2, at most 1 live.
	rate, burst, live := 1.0, 2, 1
	c2, err := e.admin.CreateToken(ctx, wire.TokenCreateRequest{Name: "site-submit", Role: "user", SubmitRate: &rate, SubmitBurst: &burst, MaxLive: &live})
	if err != nil {
		t.Fatal(err)
	}
	site := client.New(e.http.URL, c2.Secret)
	e.judge.Set(func(job.Task, int) (job.Outcome, error) {
		time.Sleep(time.Second)
		return job.Outcome{Verdict: job.VerdictAC}, nil
	}, 0)
	if _, err := site.Submit(ctx, wire.SubmitRequest{ProblemID: "aplusb", Language: "python3", Source: "print(1)"}, ""); err != nil {
		t.Fatal(err)
	}
	_, err = site.Submit(ctx, wire.SubmitRequest{ProblemID: "aplusb", Language: "python3", Source: "print(2)"}, "")
	if client.StatusOf(err) != http.StatusTooManyRequests || !strings.Contains(err.Error(), "the token's own max_live") {
		t.Fatalf("the token's second live submission: %v", err)
	}

	// Dry runs change nothing; a revoked token stops working; every action is audited.
	if r, err := e.admin.RevokeToken(ctx, "site", true); err != nil || r.WouldRevoke != 1 || r.Revoked != 0 {
		t.Fatalf("dry revoke = %+v %v", r, err)
	}
	if _, err := reader.Submission(ctx, b); err != nil {
		t.Fatalf("after a dry revoke: %v", err)
	}
	if r, err := e.admin.RevokeToken(ctx, "site", false); err != nil || r.Revoked != 1 {
		t.Fatalf("revoke = %+v %v", r, err)
	}
	if _, err := reader.Submission(ctx, b); client.StatusOf(err) != http.StatusUnauthorized {
		t.Fatalf("a revoked token: %v, want 401", err)
	}
	toks, err := e.admin.Tokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var revoked bool
	for _, tk := range toks.Items {
		revoked = revoked || tk.Name == "site" && tk.RevokedAt != nil
	}
	if !revoked {
		t.Fatalf("tokens = %+v", toks.Items)
	}
	if got := auditActions(t, e); got["token_create"] != 2 || got["token_revoke"] != 1 || got["token_revoke/dry"] != 1 {
		t.Fatalf("audit = %v", got)
	}
	if _, err := e.admin.CreateToken(ctx, wire.TokenCreateRequest{Name: "bad name", Role: "user"}); client.StatusOf(err) != http.StatusBadRequest {
		t.Fatalf("a bad name: %v", err)
	}
	if _, err := e.admin.CreateToken(ctx, wire.TokenCreateRequest{Name: "x", Role: "root"}); client.StatusOf(err) != http.StatusBadRequest {
		t.Fatalf("a bad role: %v", err)
	}
}

// The feed: every state change of every submission, in commit order, resumed from any
// cursor by a follower that keeps disconnecting; each submission's last event is what GET
// says. Filters narrow it; since=now starts at the head; a cursor it never gave is 410.
func TestFeedFollowerResumesAndEndsWhereGETIs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const n = 60
	var mu sync.Mutex
	last := map[string]wire.Event{}
	seen := map[string]bool{}
	var order []string
	done := make(chan error, 1)
	go func() {
		since := ""
		rng := rand.New(rand.NewSource(1))
		for {
			// Disconnect after a random number of events, and resume from the cursor.
			stopAfter := 1 + rng.Intn(15)
			got := 0
			fctx, fcancel := context.WithCancel(ctx)
			reached, err := e.admin.Feed(fctx, client.FeedQuery{Since: since, Follow: true}, func(ev wire.Event) error {
				mu.Lock()
				if seen[ev.ID] {
					mu.Unlock()
					return errors.New("event " + ev.ID + " delivered twice")
				}
				seen[ev.ID] = true
				order = append(order, ev.ID)
				var s wire.Submission
				if strings.HasPrefix(ev.Type, "submission.") && json.Unmarshal(ev.Data, &s) == nil {
					last[s.ID] = ev
				}
				finished := 0
				for _, le := range last {
					if le.Type == wire.EventFinished {
						finished++
					}
				}
				mu.Unlock()
				if got++; got >= stopAfter {
					fcancel()
				}
				if finished == n {
					return errStopFeed
				}
				return nil
			})
			fcancel()
			since = reached
			if errors.Is(err, errStopFeed) {
				done <- nil
				return
			}
			if err != nil && ctx.Err() != nil {
				done <- err
				return
			}
			if err != nil && !errors.Is(err, context.Canceled) {
				done <- err
				return
			}
		}
	}()
	var ids []string
	for i := range n {
		c := e.alice
		if i%2 == 1 {
			c = e.bob
		}
		res, err := c.Submit(ctx, wire.SubmitRequest{ProblemID: "aplusb", Language: "python3", Source: "print(3)",
			Metadata: map[string]string{"n": string(rune('a' + i%26))}}, "")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.ID())
	}
	if err := <-done; err != nil {
		t.Fatalf("follower: %v", err)
	}
	for _, id := range ids {
		got, err := e.admin.Submission(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		ev := last[id]
		mu.Unlock()
		var fromFeed wire.Submission
		if err := json.Unmarshal(ev.Data, &fromFeed); err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(fromFeed)
		g, _ := json.Marshal(got)
		if string(a) != string(g) || ev.Type != wire.EventFinished {
			t.Fatalf("%s: the feed's last event %s\n%s\nGET says\n%s", id, ev.Type, a, g)
		}
	}
	// Cursors only ever increase, whatever the reconnects.
	for i := 1; i < len(order); i++ {
		if !cursorLess(order[i-1], order[i]) {
			t.Fatalf("event %s after %s", order[i], order[i-1])
		}
	}

	// Filters and since=now.
	var finished int
	if _, err := e.admin.Feed(ctx, client.FeedQuery{Types: []string{wire.EventFinished}, Metadata: map[string]string{"n": "a"}},
		func(ev wire.Event) error { finished++; return nil }); err != nil {
		t.Fatal(err)
	}
	if want := (n + 25) / 26; finished != want {
		t.Fatalf("finished events with metadata n=a: %d, want %d", finished, want)
	}
	var afterNow int
	if _, err := e.admin.Feed(ctx, client.FeedQuery{Since: "now"}, func(wire.Event) error { afterNow++; return nil }); err != nil || afterNow != 0 {
		t.Fatalf("since=now without follow: %d events, %v", afterNow, err)
	}
	_, err := e.admin.Feed(ctx, client.FeedQuery{Since: "999999999-1"}, func(wire.Event) error { return nil })
	if client.StatusOf(err) != http.StatusGone || !strings.Contains(err.Error(), "resynchronise") {
		t.Fatalf("a cursor the feed never gave: %v", err)
	}
}

var errStopFeed = errors.New("stop")

func cursorLess(a, b string) bool {
	at, ai, _ := strings.Cut(a, "-")
	bt, bi, _ := strings.Cut(b, "-")
	if len(at) != len(bt) {
		return len(at) < len(bt)
	}
	if at != bt {
		return at < bt
	}
	if len(ai) != len(bi) {
		return len(ai) < len(bi)
	}
	return ai < bi
}
