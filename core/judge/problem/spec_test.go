package problem

import (
	"errors"
	"strings"
	"testing"
)

// parse is parseSpec on a package of three cases holding chk.cpp and inter.cpp.
func parse(yml string) (Spec, error) {
	has := func(n string) bool { return n == "chk.cpp" || n == "inter.cpp" }
	return parseSpec([]byte(yml), 3, has)
}

// TestSpecErrorsSayWhereAndWhat: every mistake in problem.yaml is reported with its
// line, the key's full name and what would be right, in words a problem setter knows.
func TestSpecErrorsSayWhereAndWhat(t *testing.T) {
	cases := []struct {
		name   string
		yaml   string
		reason error
		want   string // the whole message
	}{
		{"unknown key with a suggestion", "title: A\ntime_limit: 1000\n", ErrBadYAML,
			`problem.yaml line 2: unknown key "time_limit" (did you mean "time_limit_ms"? valid keys: title, time_limit_ms, memory_limit_mb, output_limit_mb, checker, interactor, stop_on_first_failure, subtasks, samples, public_tests, interactive, scoring, timing, submissions, languages, time_factors)`},
		{"unknown key, different spelling", "title: A\nMemoryLimitMB: 64\n", ErrBadYAML,
			`problem.yaml line 2: unknown key "MemoryLimitMB" (did you mean "memory_limit_mb"? valid keys: title, time_limit_ms, memory_limit_mb, output_limit_mb, checker, interactor, stop_on_first_failure, subtasks, samples, public_tests, interactive, scoring, timing, submissions, languages, time_factors)`},
		{"unknown key far from any", "title: A\nauthor: me\n", ErrBadYAML,
			`problem.yaml line 2: unknown key "author" (valid keys: title, time_limit_ms, memory_limit_mb, output_limit_mb, checker, interactor, stop_on_first_failure, subtasks, samples, public_tests, interactive, scoring, timing, submissions, languages, time_factors)`},
		{"unknown checker key", "title: A\nchecker:\n  type: float\n  eps: 0.1\n", ErrBadYAML,
			`problem.yaml line 4: unknown key "checker.eps" (did you mean "checker.epsilon"? valid keys of checker: type, epsilon, source, case_sensitive, space_change_sensitive, absolute_tolerance, relative_tolerance, args)`},
		{"unknown subtask key", "title: A\nsubtasks:\n  - {score: 50, cases: [1]}\n  - {scroe: 50, cases: [2, 3]}\n", ErrBadYAML,
			`problem.yaml line 4: unknown key "subtasks[1].scroe" (did you mean "subtasks[1].score"? valid keys of subtasks[1]: score, cases)`},
		{"key twice", "title: A\ntitle: B\n", ErrBadYAML, `problem.yaml line 2: title appears twice (first on line 1)`},
		{"text for a number", "title: A\ntime_limit_ms: 2s\n", ErrBadYAML,
			`problem.yaml line 2: time_limit_ms: want a whole number of milliseconds, 1..60000, got "2s"`},
		{"fraction for a whole number", "title: A\nmemory_limit_mb: 1.5\n", ErrBadYAML,
			`problem.yaml line 2: memory_limit_mb: want a whole number of MiB, 1..4096, got "1.5"`},
		{"number too big for any limit", "title: A\ntime_limit_ms: 99999999999999999999\n", ErrBadYAML,
			`problem.yaml line 2: time_limit_ms: want a whole number of milliseconds, 1..60000, got "99999999999999999999"`},
		{"a list for text", "title: [a, b]\n", ErrBadYAML, `problem.yaml line 1: title: want text of 1..200 characters, got a list`},
		{"text for a mapping", "title: A\nchecker: lines\n", ErrBadYAML,
			`problem.yaml line 2: checker: want a mapping such as {type: lines}, got "lines"`},
		{"yes for a boolean", "title: A\nstop_on_first_failure: yes\n", ErrBadYAML,
			`problem.yaml line 2: stop_on_first_failure: want true or false, got "yes"`},
		{"text for epsilon", "title: A\nchecker: {type: float, epsilon: small}\n", ErrBadYAML,
			`problem.yaml line 2: checker.epsilon: want a number in (0, 1), got "small"`},
		{"subtasks not a list", "title: A\nsubtasks: {score: 100}\n", ErrBadYAML,
			`problem.yaml line 2: subtasks: want a list of subtasks such as [{score: 30, cases: [1, 2]}], got a mapping`},
		{"a case that is not a number", "title: A\nsubtasks:\n  - score: 100\n    cases: [1, two, 3]\n", ErrBadYAML,
			`problem.yaml line 4: subtasks[0].cases[1]: want a case number (1, 2, …), got "two"`},
		{"top level not a mapping", "- title: A\n", ErrBadYAML,
			`problem.yaml line 1: the top level: want a mapping of keys (title: …, time_limit_ms: …), got a list`},
		{"alias", "title: &t A\ninteractor: *t\n", ErrBadYAML, `problem.yaml line 2: interactor: aliases (*t) are not supported: write the value out`},
		{"syntax error", "title: A\n  time_limit_ms: 5\n", ErrBadYAML, "problem.yaml line 2: not valid YAML: mapping values are not allowed in this context"},
		{"empty file", "", ErrBadYAML, "problem.yaml line 1: the file is empty; it needs at least a title (title: A+B)"},
		{"no title", "time_limit_ms: 100\n", ErrBadYAML, "problem.yaml line 1: title: required, 1..200 characters (title: A+B)"},
		{"time limit out of range", "title: A\ntime_limit_ms: 60001\n", ErrBadLimits, "problem.yaml line 2: time_limit_ms: 60001 is out of range 1..60000"},
		{"negative memory", "title: A\n\nmemory_limit_mb: -1\n", ErrBadLimits, "problem.yaml line 3: memory_limit_mb: -1 is out of range 1..4096"},
		{"unknown checker type", "title: A\nchecker:\n  type: magic\n", ErrBadChecker,
			`problem.yaml line 3: checker.type: "magic" is not a checker; want one of lines, exact, tokens, float, testlib, kattis`},
		{"epsilon out of range", "title: A\nchecker: {type: float, epsilon: 2}\n", ErrBadChecker,
			"problem.yaml line 2: checker.epsilon: 2 is out of range: want a number in (0, 1), such as 1e-6"},
		{"epsilon on a lines checker", "title: A\nchecker:\n  epsilon: 0.5\n", ErrBadChecker,
			"problem.yaml line 3: checker.epsilon: only the float checker takes one (this one is lines)"},
		{"source on a float checker", "title: A\nchecker: {type: float, source: chk.cpp}\n", ErrBadChecker,
			"problem.yaml line 2: checker.source: only the testlib and kattis checkers take one (this one is float)"},
		{"testlib source missing", "title: A\nchecker:\n  type: testlib\n  source: check.cpp\n", ErrBadChecker,
			`problem.yaml line 4: checker.source: "check.cpp" not in the package`},
		{"interactor not C", "title: A\ninteractor: inter.py\n", ErrBadInteractor,
			`problem.yaml line 2: interactor: "inter.py": want a .c, .cc or .cpp source`},
		{"checker named like a compiler option", "title: A\nchecker: {type: testlib, source: -print-prog-name=x.cpp}\n", ErrBadChecker,
			`problem.yaml line 2: checker.source: "-print-prog-name=x.cpp" is not a plain file name: use letters, digits, '_', '.', '+' and '-', starting with a letter, a digit or '_' (such as checker.cpp)`},
		{"interactor named like a response file", "title: A\ninteractor: \"@inter.cpp\"\n", ErrBadInteractor,
			`problem.yaml line 2: interactor: "@inter.cpp" is not a plain file name: use letters, digits, '_', '.', '+' and '-', starting with a letter, a digit or '_' (such as checker.cpp)`},
		{"checker name with a space", "title: A\nchecker: {type: testlib, source: \"my checker.cpp\"}\n", ErrBadChecker,
			`problem.yaml line 2: checker.source: "my checker.cpp" is not a plain file name: use letters, digits, '_', '.', '+' and '-', starting with a letter, a digit or '_' (such as checker.cpp)`},
		{"subtask score out of range", "title: A\nsubtasks:\n  - {score: 0, cases: [1, 2, 3]}\n", ErrBadSubtasks,
			"problem.yaml line 3: subtasks[0].score: 0 is out of range: want a number in (0, 1000000]"},
		{"subtask case out of range", "title: A\nsubtasks:\n  - score: 100\n    cases:\n      - 1\n      - 2\n      - 4\n", ErrBadSubtasks,
			"problem.yaml line 7: subtasks[0].cases: case 4 does not exist (the tests are 1..3)"},
		{"case in two subtasks", "title: A\nsubtasks:\n  - {score: 50, cases: [1, 2]}\n  - {score: 50, cases: [2, 3]}\n", ErrBadSubtasks,
			"problem.yaml line 4: subtasks[1].cases: case 2 is already in subtasks[0]; a case belongs to one subtask"},
		{"sample out of range", "title: A\nsamples: [1, 4]\n", ErrBadSamples,
			"problem.yaml line 2: samples: case 4 does not exist (the tests are 1..3)"},
		{"sample twice", "title: A\nsamples:\n  - 2\n  - 2\n", ErrBadSamples,
			"problem.yaml line 4: samples: case 2 is listed twice"},
		{"public_tests not a boolean", "title: A\npublic_tests: all\n", ErrBadYAML,
			`problem.yaml line 2: public_tests: want true or false, got "all"`},
		{"case in no subtask", "title: A\nsubtasks:\n  - {score: 50, cases: [1, 2]}\n", ErrBadSubtasks,
			"problem.yaml line 3: subtasks: case 3 belongs to no subtask; every case must be in one"},
		{"subtask without cases", "title: A\nsubtasks:\n  - score: 100\n", ErrBadSubtasks,
			"problem.yaml line 3: subtasks[0].cases: required, a list of case numbers such as [1, 2]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := parse(c.yaml)
			if !errors.Is(err, c.reason) || !IsInvalid(err) {
				t.Fatalf("err = %v, want an *InvalidError for %v", err, c.reason)
			}
			if err.Error() != c.want {
				t.Fatalf("message\n got %s\nwant %s", err, c.want)
			}
			for _, goWord := range []string{"!!", "unmarshal", "into ", "float64", "int64", "problem.Spec", "struct"} {
				if strings.Contains(err.Error(), goWord) {
					t.Fatalf("message %q speaks of the decoder's types (%s)", err, goWord)
				}
			}
		})
	}
}

func TestSpecAcceptsEveryKey(t *testing.T) {
	s, err := parse("title: A+B\ntime_limit_ms: 2000\nmemory_limit_mb: 512\n" +
		"checker: {type: testlib, source: chk.cpp}\ninteractor: inter.cpp\nstop_on_first_failure: true\n" +
		"subtasks:\n  - {score: 30, cases: [1]}\n  - {score: 70.5, cases: [2, 3]}\n")
	if err != nil {
		t.Fatal(err)
	}
	if s.Title != "A+B" || s.TimeLimitMS != 2000 || s.MemoryLimitMB != 512 || s.Checker.Source != "chk.cpp" ||
		s.Interactor != "inter.cpp" || !s.StopOnFirstFailure || len(s.Subtasks) != 2 || s.Subtasks[1].Score != 70.5 {
		t.Fatalf("spec %+v", s)
	}
}

func TestSpecEmptyValuesAreDefaults(t *testing.T) {
	s, err := parse("title: A\ntime_limit_ms:\nchecker:\nstop_on_first_failure:\n")
	if err != nil {
		t.Fatal(err)
	}
	if s.TimeLimitMS != defaultTimeMS || s.Checker.Type != CheckerLines || s.StopOnFirstFailure {
		t.Fatalf("spec %+v", s)
	}
}

func FuzzParseSpec(f *testing.F) {
	f.Add("title: A\ntime_limit_ms: 1000\nchecker: {type: float, epsilon: 1e-3}\n")
	f.Add("title: A\nsubtasks: [{score: 1, cases: [1, 2, 3]}]\nstop_on_first_failure: true\n")
	f.Add("title: &a x\nchecker: {type: *a}\n")
	f.Add("title: A\ntime_limit: 1\n")
	f.Fuzz(func(t *testing.T, yml string) {
		s, err := parse(yml)
		if err != nil {
			if !IsInvalid(err) {
				t.Fatalf("error %v is not an *InvalidError", err)
			}
			if ie := err.(*InvalidError); ie.Line < 1 {
				t.Fatalf("error %v has no line", err)
			}
			return
		}
		if s.Title == "" || s.TimeLimitMS < 1 || s.TimeLimitMS > maxTimeLimitMS || s.MemoryLimitMB < 1 || s.MemoryLimitMB > maxMemoryLimitMB {
			t.Fatalf("accepted %+v", s)
		}
	})
}
