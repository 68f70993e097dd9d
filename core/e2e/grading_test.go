package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"oj/core/api/client"
	"oj/core/store"
	"oj/core/testenv"
	"oj/core/wire"
)

// twiceScoring is a Kattis scoring package with two groups of secret tests (30 and 70
// points) and the default validator.
func twiceScoring() map[string]string {
	return map[string]string{
		"problem.yaml":                  "problem_format_version: 2025-09\nname: Twice\nuuid: 1\ntype: scoring\nlimits:\n  time_limit: 2\n",
		"data/sample/1.in":              "2\n",
		"data/sample/1.ans":             "4\n",
		"data/secret/test_group.yaml":   "max_score: 100\n",
		"data/secret/a/test_group.yaml": "max_score: 30\n",
		"data/secret/a/1.in":            "1\n",
		"data/secret/a/1.ans":           "2\n",
		"data/secret/b/test_group.yaml": "max_score: 70\n",
		"data/secret/b/1.in":            "5\n",
		"data/secret/b/1.ans":           "10\n",
		"data/secret/b/2.in":            "6\n",
		"data/secret/b/2.ans":           "12\n",
		"statement/problem.en.md":       "Print twice the number.\n",
	}
}

// findGroup is the group of path among gs and their subgroups.
func findGroup(gs []wire.GroupResult, path string) *wire.GroupResult {
	for i := range gs {
		if gs[i].Path == path {
			return &gs[i]
		}
		if g := findGroup(gs[i].Groups, path); g != nil {
			return g
		}
	}
	return nil
}

// A site can show a scoring problem: the problem's group tree with each group's
// maximum, and a submission passing one group and failing the other carries both
// groups' results — score, maximum, verdict, first failing case — in its GET and in the
// results feed's event. A pass/fail problem's WA carries no score.
func scoringGroupsReachTheSite(t *testing.T, s *system, admin *client.Client) {
	ctx := context.Background()
	if _, aerr := put(admin, "twice", twiceScoring()); aerr != nil {
		t.Fatalf("upload: %+v", aerr)
	}
	p, err := admin.Problem(ctx, "twice")
	if err != nil {
		t.Fatal(err)
	}
	if p.Grading.Mode != "groups" || p.Grading.MaxScore == nil || *p.Grading.MaxScore != 100 {
		t.Fatalf("grading %+v", p.Grading)
	}
	tree, _ := json.Marshal(p.Grading.Groups)
	for _, want := range []string{`"path":"secret/a"`, `"path":"secret/b"`, `"max_score":30`, `"max_score":70`} {
		if !strings.Contains(string(tree), want) {
			t.Errorf("the problem's group tree lacks %s: %s", want, tree)
		}
	}

	// Right below 5, wrong from 5 on: group a passes, group b fails at its first case.
	res, err := admin.Submit(ctx, wire.SubmitRequest{ProblemID: "twice", Language: "python3",
		Source: "n = int(input())\nprint(2 * n if n < 5 else 0)\n"}, "")
	if err != nil {
		t.Fatal(err)
	}
	sub := s.waitAPI(t, admin, res.ID())
	// Kattis grades the secret group by its worst error: WA, with group a's 30 points.
	if sub.Verdict == nil || *sub.Verdict != "WA" || sub.Score == nil || *sub.Score != 30 {
		t.Fatalf("judged %+v, want WA 30", sub)
	}
	checkGroups := func(where string, gs []wire.GroupResult) {
		t.Helper()
		a, b := findGroup(gs, "secret/a"), findGroup(gs, "secret/b")
		if a == nil || a.Score != 30 || a.MaxScore != 30 || a.Verdict != "AC" || a.FirstFailingCase != nil {
			t.Errorf("%s: group a = %+v, want 30/30 AC", where, a)
		}
		if b == nil || b.Score != 0 || b.MaxScore != 70 || b.Verdict != "WA" || b.FirstFailingCase == nil {
			t.Errorf("%s: group b = %+v, want 0/70 WA with its first failing case", where, b)
			return
		}
		if c := sub.Cases[*b.FirstFailingCase-1]; c.Verdict != "WA" {
			t.Errorf("%s: group b's first failing case %d is %s", where, *b.FirstFailingCase, c.Verdict)
		}
	}
	checkGroups("GET", sub.Groups)

	// The feed's finished event: the same groups, rendered the same way.
	var finished *wire.Submission
	if _, err := admin.Feed(ctx, client.FeedQuery{ProblemID: "twice"}, func(ev wire.Event) error {
		var es wire.Submission
		if json.Unmarshal(ev.Data, &es) == nil && es.ID == sub.ID && es.State == "finished" {
			finished = &es
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if finished == nil {
		t.Fatal("the feed has no finished event of the submission")
	}
	checkGroups("feed event", finished.Groups)

	// A pass/fail problem (Kattis pass-fail: judging stops at the first failure): its WA
	// has no score, and neither have its cases.
	pf := twiceScoring()
	pf["problem.yaml"] = "problem_format_version: 2025-09\nname: Twice\nuuid: 2\nlimits:\n  time_limit: 2\n"
	for _, f := range []string{"data/secret/test_group.yaml", "data/secret/a/test_group.yaml", "data/secret/b/test_group.yaml"} {
		delete(pf, f)
	}
	if _, aerr := put(admin, "twice-pf", pf); aerr != nil {
		t.Fatalf("upload of the pass/fail problem: %+v", aerr)
	}
	if p, err := admin.Problem(ctx, "twice-pf"); err != nil || p.Grading.Mode != "pass_fail" || p.Grading.MaxScore != nil {
		t.Fatalf("pass/fail problem %+v %v", p, err)
	}
	res, err = admin.Submit(ctx, wire.SubmitRequest{ProblemID: "twice-pf", Language: "python3",
		Source: "n = int(input())\nprint(2 * n if n < 5 else 0)\n"}, "")
	if err != nil {
		t.Fatal(err)
	}
	wa := s.waitAPI(t, admin, res.ID())
	if wa.Verdict == nil || *wa.Verdict != "WA" || wa.Score != nil || len(wa.Groups) != 0 {
		t.Fatalf("pass/fail WA: verdict %v score %v groups %+v, want WA with no score", wa.Verdict, wa.Score, wa.Groups)
	}
	raw := rawGet(t, admin, "/api/v1/submissions/"+wa.ID)
	if !strings.Contains(raw, `"score":null`) {
		t.Errorf("pass/fail WA as sent: %s, want score null", raw)
	}
	for _, c := range wa.Cases {
		if c.Score != 0 {
			t.Errorf("pass/fail case %d scores %v", c.Index, c.Score)
		}
	}
}

// sumProvisional is a Kattis package without a time limit: its limit is derived from its
// accepted submission at verify.
func sumProvisional(uuid string) map[string]string {
	return map[string]string{
		"problem.yaml":                "problem_format_version: 2025-09\nname: Sum\nuuid: " + uuid + "\n",
		"data/sample/1.in":            "1 2\n",
		"data/sample/1.ans":           "3\n",
		"data/secret/1.in":            "20 22\n",
		"data/secret/1.ans":           "42\n",
		"statement/problem.en.md":     "Add two numbers.\n",
		"submissions/accepted/sum.py": "a, b = map(int, input().split())\nprint(a + b)\n",
	}
}

// No live guessing of limits: a problem whose time limit is provisional refuses a
// user's submission with 409 naming verify, takes an admin's, and opens once a verify
// derived its limit, which GET of the problem then shows with what it came from.
func provisionalProblemOpensAfterVerify(t *testing.T, s *system, admin *client.Client) {
	ctx := context.Background()
	userTok, err := store.CreateToken(ctx, s.db, testenv.RandomName("alice-"), "user")
	if err != nil {
		t.Fatal(err)
	}
	alice := client.New(admin.BaseURL, userTok)
	p, aerr := put(admin, "sum", sumProvisional("1"))
	if aerr != nil {
		t.Fatalf("upload: %+v", aerr)
	}
	if !p.TimeLimitProvisional || p.TimeLimitDerivation == nil || p.TimeLimitDerivation.State != "provisional" ||
		p.TimeLimitDerivation.ACToTimeLimit == nil {
		t.Fatalf("pushed %+v, derivation %+v", p, p.TimeLimitDerivation)
	}
	req := wire.SubmitRequest{ProblemID: "sum", Language: "python3", Source: "a, b = map(int, input().split())\nprint(a + b)\n"}
	_, err = alice.Submit(ctx, req, "")
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Status != http.StatusConflict || ce.Code != "limits_provisional" ||
		!strings.Contains(ce.Message, "ojctl problem verify sum") {
		t.Fatalf("a user's submit to a provisional problem: %v, want 409 limits_provisional naming verify", err)
	}
	if _, err := admin.Submit(ctx, req, ""); err != nil {
		t.Fatalf("an admin's submit to a provisional problem: %v", err)
	}

	v := verify(t, admin, "sum", 5*time.Minute)
	if v.State != "passed" || !v.Derived {
		t.Fatalf("verification: %s", table(v))
	}
	res, err := alice.Submit(ctx, req, "")
	if err != nil {
		t.Fatalf("a user's submit after verify: %v", err)
	}
	if sub := s.waitAPI(t, alice, res.ID()); sub.Verdict == nil || *sub.Verdict != "AC" {
		t.Fatalf("after verify: %+v", sub)
	}
	got, err := admin.Problem(ctx, "sum")
	if err != nil {
		t.Fatal(err)
	}
	d := got.TimeLimitDerivation
	if got.TimeLimitProvisional || d == nil || d.State != "derived" || d.LimitMS != v.LimitMS || d.VerificationID != v.ID ||
		d.SlowestACSource != "submissions/accepted/sum.py" || len(d.From) != 1 || d.From[0].Source != "submissions/accepted/sum.py" ||
		d.ACToTimeLimit == nil || d.TimeLimitToTLE == nil || d.ResolutionMS == nil {
		t.Fatalf("after verify: %+v, derivation %+v", got, d)
	}
	if seen, err := alice.Problem(ctx, "sum"); err != nil || seen.TimeLimitDerivation == nil || seen.TimeLimitDerivation.From != nil {
		t.Errorf("a user's view of the derivation: %+v %v, want it without the labeled submissions", seen, err)
	}
}

// TestGradingAndProvisionalLimits runs both on one judge: its start (every language's
// self-check) is the slow part.
func TestGradingAndProvisionalLimits(t *testing.T) {
	s := newSystem(t, 2)
	admin := withBuilds(t, s)
	t.Run("ScoringGroupsReachTheSite", func(t *testing.T) { scoringGroupsReachTheSite(t, s, admin) })
	t.Run("ProvisionalProblemOpensAfterVerify", func(t *testing.T) { provisionalProblemOpensAfterVerify(t, s, admin) })
}
