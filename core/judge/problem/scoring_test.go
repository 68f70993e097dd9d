package problem

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestScoringAndKattisKeys(t *testing.T) {
	has := func(n string) bool {
		return n == "v/validate.cc" || n == "v/check.py" || n == "chk.cpp" || n == "submissions/accepted/a.cpp"
	}
	good := "title: A\nchecker: {type: kattis, source: v/validate.cc, args: [float_tolerance, \"1e-6\"]}\n" +
		"scoring:\n  aggregate: sum\n  on_reject: continue\n  range: [0, 100]\n  groups:\n" +
		"    - {name: sample, cases: [1], ignore: true, accept_score: 0}\n" +
		"    - name: secret\n      verdict: first_error\n      accept_if_any_accepted: true\n      groups:\n" +
		"        - {name: g1, aggregate: min, accept_score: 50, range: [0, 50], cases: [2]}\n" +
		"        - {name: g2, aggregate: pass_fail, range: [0, 50], cases: [3]}\n" +
		"timing: {derive: true}\n" +
		"submissions:\n  - {source: submissions/accepted/a.cpp, language: cpp17, expect: [AC], label: accepted}\n"
	s, err := parseSpec([]byte(good), 3, has)
	if err != nil {
		t.Fatal(err)
	}
	if s.Checker.Type != CheckerKattis || len(s.Checker.Args) != 2 || s.Scoring == nil || len(s.Scoring.Groups) != 2 ||
		s.Timing.ACToTimeLimit != 2 || s.Timing.TimeLimitToTLE != 1.5 || s.Timing.ResolutionMS != 1000 || len(s.Submissions) != 1 {
		t.Fatalf("spec %+v", s)
	}
	if got := s.Scoring.MaxScore(); got != 100 {
		t.Fatalf("max score %v", got)
	}
	if got := strings.Join(s.GroupOf(3), "/"); got != "secret/g2" {
		t.Fatalf("group of case 3: %q", got)
	}
	bad := []struct {
		name, yaml string
		reason     error
		want       string
	}{
		{"case in two groups", "title: A\nscoring:\n  groups:\n    - {cases: [1, 2]}\n    - {cases: [2, 3]}\n", ErrBadSubtasks,
			"scoring.groups[1].cases[0]: case 2 is already in scoring.groups[0]"},
		{"case in no group", "title: A\nscoring: {cases: [1, 2]}\n", ErrBadSubtasks, "case 3 belongs to no group"},
		{"out of order", "title: A\nscoring:\n  groups:\n    - {cases: [1, 3]}\n    - {cases: [2]}\n", ErrBadSubtasks,
			"case 3 would be judged 2nd"},
		{"unknown aggregate", "title: A\nscoring: {aggregate: median, cases: [1, 2, 3]}\n", ErrBadSubtasks, `"median" is not one of sum, min, max, avg, pass_fail`},
		{"pass_fail without a range", "title: A\nscoring: {aggregate: pass_fail, cases: [1, 2, 3]}\n", ErrBadSubtasks, "a pass_fail group scores the top of its range"},
		{"with subtasks", "title: A\nsubtasks: [{score: 1, cases: [1, 2, 3]}]\nscoring: {cases: [1, 2, 3]}\n", ErrBadSubtasks, "not both"},
		{"interactive with testlib", "title: A\ninteractive: true\nchecker: {type: testlib, source: chk.cpp}\n", ErrBadInteractor, "needs a kattis checker"},
		{"python testlib checker", "title: A\nchecker: {type: testlib, source: v/check.py}\n", ErrBadChecker, "top level"},
		{"validator two folders deep", "title: A\nchecker: {type: kattis, source: a/b/c.cc}\n", ErrBadChecker, "in one folder"},
		{"args on tokens", "title: A\nchecker: {type: tokens, args: [x]}\n", ErrBadChecker, "only the kattis checker takes one"},
		{"tolerance on tokens", "title: A\nchecker: {type: tokens, absolute_tolerance: 0.1}\n", ErrBadChecker, "only the float checker takes one"},
		{"epsilon and a tolerance", "title: A\nchecker: {type: float, epsilon: 0.1, relative_tolerance: 0.1}\n", ErrBadChecker, "not both"},
		{"submission outside submissions/", "title: A\nsubmissions: [{source: chk.cpp, expect: [AC]}]\n", ErrBadSubmissions, "under submissions/"},
		{"unknown verdict", "title: A\nsubmissions: [{source: submissions/accepted/a.cpp, expect: [OK]}]\n", ErrBadSubmissions, `"OK" is not one of`},
		{"timing out of range", "title: A\ntiming: {ac_to_time_limit: 0.5}\n", ErrBadLimits, "timing.ac_to_time_limit: 0.5 is out of range 1..100"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseSpec([]byte(c.yaml), 3, has)
			if !errors.Is(err, c.reason) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %v saying %q", err, c.reason, c.want)
			}
		})
	}
}

// TestScoresAreBounded: a score oj could not keep — NaN, ±Inf, past job.MaxScore — is
// refused where problem.yaml gives it, naming the key, and so is a tree or a set of
// subtasks whose full marks would pass the bound; a score at the bound is taken.
func TestScoresAreBounded(t *testing.T) {
	has := func(string) bool { return false }
	bad := []struct{ name, yaml, want string }{
		{"infinite accept_score", "title: A\nscoring: {accept_score: .inf, cases: [1, 2, 3]}\n",
			"scoring.accept_score: +Inf is not a finite number within ±1e+09"},
		{"NaN reject_score", "title: A\nscoring:\n  groups:\n    - {cases: [1, 2, 3], reject_score: .nan}\n",
			"scoring.groups[0].reject_score: NaN is not a finite number within ±1e+09"},
		{"huge accept_score", "title: A\nscoring: {accept_score: 1e308, cases: [1, 2, 3]}\n",
			"scoring.accept_score: 1e+308 is not a finite number within ±1e+09"},
		{"range past the bound", "title: A\nscoring: {range: [0, 1e10], cases: [1, 2, 3]}\n",
			"scoring.range[1]: 1e+10 is not a finite number within ±1e+09"},
		{"a sum past the bound", "title: A\nscoring: {accept_score: 5e8, cases: [1, 2, 3]}\n",
			"scoring: its cases accepted would score 1.5e+09, past oj's bound"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseSpec([]byte(c.yaml), 3, has)
			if !errors.Is(err, ErrBadSubtasks) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one saying %q", err, c.want)
			}
		})
	}
	if _, err := parseSpec([]byte("title: A\nscoring: {accept_score: 1e9, aggregate: max, cases: [1, 2, 3]}\n"), 3, has); err != nil {
		t.Fatalf("a score at the bound: %v", err)
	}
	// 1001 subtasks of the most each may score add up past the bound.
	var y strings.Builder
	y.WriteString("title: A\nsubtasks:\n")
	for i := 1; i <= 1001; i++ {
		fmt.Fprintf(&y, "  - {score: 1000000, cases: [%d]}\n", i)
	}
	if _, err := parseSpec([]byte(y.String()), 1001, has); !errors.Is(err, ErrBadSubtasks) ||
		!strings.Contains(err.Error(), "subtasks: their scores add up to 1.001e+09, past oj's bound") {
		t.Fatalf("subtasks past the bound: %v", err)
	}
}
