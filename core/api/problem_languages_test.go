package api_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"oj/core/api/client"
	"oj/core/wire"
)

// TestProblemLanguageRules: a package that restricts its languages has them (and its
// time factors) in the problem's public metadata; a submit in another language is a
// 400 language_not_allowed naming the allowed ones; one in an allowed language is
// accepted. A package naming a language the judge does not configure is refused at
// upload, naming problem.yaml and the key.
func TestProblemLanguageRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true})
	ctx := context.Background()

	p, err := e.admin.PutProblem(ctx, "ruled", strings.NewReader(problemZip("title: Ruled\nlanguages: [cpp17, python3]\ntime_factors: {python3: 2}\n")))
	if err != nil || !slices.Equal(p.Languages, []string{"cpp17", "python3"}) || p.TimeFactors["python3"] != 2 {
		t.Fatalf("upload = %+v %v", p, err)
	}
	got, err := e.alice.Problem(ctx, "ruled")
	if err != nil || !slices.Equal(got.Languages, []string{"cpp17", "python3"}) || len(got.TimeFactors) != 1 || got.TimeFactors["python3"] != 2 {
		t.Fatalf("get = %+v %v", got, err)
	}
	_, err = e.alice.Submit(ctx, wire.SubmitRequest{ProblemID: "ruled", Language: "java17", Source: "class Main {}"}, "")
	var ae *client.Error
	if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest || ae.Code != "language_not_allowed" ||
		!strings.Contains(ae.Message, "does not accept java17: its languages are cpp17, python3") {
		t.Fatalf("submit in java17: %v, want 400 language_not_allowed naming cpp17, python3", err)
	}
	if _, err := e.alice.Submit(ctx, wire.SubmitRequest{ProblemID: "ruled", Language: "python3", Source: "print(3)"}, ""); err != nil {
		t.Fatalf("submit in python3: %v", err)
	}

	// A problem without rules takes every language and says so with empty values.
	if open, err := e.alice.Problem(ctx, "aplusb"); err != nil || open.Languages == nil || len(open.Languages) != 0 ||
		open.TimeFactors == nil || len(open.TimeFactors) != 0 {
		t.Fatalf("aplusb = %+v %v, want languages [] and time_factors {}", open, err)
	}

	// A Kattis package's codes become oj's ids.
	kattis := map[string]string{
		"problem.yaml":      "name: Kattis rules\nlanguages: cpp python3 prolog\n",
		"data/secret/1.in":  "1 2\n",
		"data/secret/1.ans": "3\n",
	}
	k, err := e.admin.PutProblem(ctx, "kattis-rules", strings.NewReader(zipOf(kattis)))
	if err != nil || !slices.Equal(k.Languages, []string{"cpp17", "cpp20", "cpp23", "python3", "pypy3"}) {
		t.Fatalf("kattis upload = %+v %v", k, err)
	}
	_, err = e.alice.Submit(ctx, wire.SubmitRequest{ProblemID: "kattis-rules", Language: "go", Source: "package main"}, "")
	if !errors.As(err, &ae) || ae.Code != "language_not_allowed" {
		t.Fatalf("submit in go to the Kattis problem: %v", err)
	}

	for name, c := range map[string]struct{ yaml, want string }{
		"a language the judge lacks": {"title: X\nlanguages: [cpp17, cobol]\n", `problem.yaml": languages: "cobol" is not a language of this judge`},
		"a factor the judge lacks":   {"title: X\ntime_factors: {cobol: 2}\n", `time_factors.cobol: "cobol" is not a language of this judge`},
		"a factor out of range":      {"title: X\ntime_factors: {python3: 20}\n", "time_factors.python3: 20 is out of range"},
	} {
		_, err := e.admin.PutProblem(ctx, "bad", strings.NewReader(problemZip(c.yaml)))
		if !errors.As(err, &ae) || ae.Status != 400 || ae.Code != "invalid_package" || !strings.Contains(ae.Message, c.want) {
			t.Errorf("%s: %v, want 400 invalid_package saying %q", name, err, c.want)
		}
	}
}
