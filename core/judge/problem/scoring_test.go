package problem

import (
	"errors"
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
