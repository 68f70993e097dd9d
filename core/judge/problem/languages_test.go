package problem

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestLanguageRules: languages and time_factors are read, and what a submission in
// each language may do follows from them.
func TestLanguageRules(t *testing.T) {
	s, err := parse("title: A\nlanguages: [cpp17, python3, pypy3]\ntime_factors: {python3: 3, pypy3: 1.5}\n")
	if err != nil {
		t.Fatal(err)
	}
	if !s.AllowsLanguage("cpp17") || !s.AllowsLanguage("pypy3") || s.AllowsLanguage("java17") {
		t.Fatalf("languages %q", s.Languages)
	}
	if s.TimeFactor("python3") != 3 || s.TimeFactor("pypy3") != 1.5 || s.TimeFactor("cpp17") != 1 {
		t.Fatalf("time_factors %v", s.TimeFactors)
	}
	if got := s.LanguageIDs(); !slices.Equal(got, []string{"cpp17", "pypy3", "python3"}) {
		t.Fatalf("LanguageIDs %q", got)
	}
	open, err := parse("title: A\ntime_factors:\n  java17: 2\n")
	if err != nil {
		t.Fatal(err)
	}
	if !open.AllowsLanguage("java17") || !open.AllowsLanguage("go") || open.TimeFactor("java17") != 2 {
		t.Fatalf("spec %+v", open)
	}
}

func TestLanguageRulesErrors(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"not a list", "title: A\nlanguages: cpp17\n", "problem.yaml line 2: languages: want a list of language ids such as [cpp17, python3], got \"cpp17\""},
		{"not an id", "title: A\nlanguages: [cpp17, C++]\n", `problem.yaml line 2: languages: "C++" is not a language id (such as cpp17 or python3)`},
		{"twice", "title: A\nlanguages:\n  - go\n  - go\n", "problem.yaml line 4: languages: go is listed twice"},
		{"factor not a number", "title: A\ntime_factors: {python3: fast}\n", `problem.yaml line 2: time_factors.python3: want a number in [0.1, 10], got "fast"`},
		{"factor out of range", "title: A\ntime_factors:\n  python3: 0\n", "problem.yaml line 3: time_factors.python3: 0 is out of range: want a number in [0.1, 10]"},
		{"factor too big", "title: A\ntime_factors:\n  python3: 11\n", "time_factors.python3: 11 is out of range"},
		{"factor for a language not allowed", "title: A\nlanguages: [cpp17]\ntime_factors:\n  python3: 2\n",
			"problem.yaml line 4: time_factors.python3: python3 is not among languages (cpp17)"},
		{"factor of no id", "title: A\ntime_factors:\n  \"Py 3\": 2\n", `time_factors: "Py 3" is not a language id`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(c.yaml)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if !errors.Is(err, ErrBadLanguages) && !errors.Is(err, ErrBadYAML) {
				t.Fatalf("err = %v: not a package error", err)
			}
		})
	}
}
