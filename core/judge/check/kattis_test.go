package check

import (
	"errors"
	"strings"
	"testing"

	"oj/core/job"
)

// TestDefaultValidatorFlags: the tokens and float modes under the Kattis default
// validator's flags, as its specification words them.
func TestDefaultValidatorFlags(t *testing.T) {
	kattis := Options{CaseInsensitive: true} // the default: case_sensitive not given
	cases := []struct {
		name     string
		mode     string
		o        Options
		out, ans string
		want     job.Verdict
	}{
		{"case-insensitive by default", Tokens, kattis, "yes\n", "YES\n", job.VerdictAC},
		{"case_sensitive", Tokens, Options{}, "yes\n", "YES\n", job.VerdictWA},
		{"only ASCII letters fold", Tokens, kattis, "ÄB\n", "äb\n", job.VerdictWA},
		{"any whitespace", Tokens, kattis, "  1\t2\n\n", "1 2\n", job.VerdictAC},
		{"space_change_sensitive: same", Tokens, Options{SpaceSensitive: true}, "1 2\n", "1 2\n", job.VerdictAC},
		{"space_change_sensitive: extra space", Tokens, Options{SpaceSensitive: true}, "1  2\n", "1 2\n", job.VerdictWA},
		{"space_change_sensitive: missing final newline", Tokens, Options{SpaceSensitive: true}, "1 2", "1 2\n", job.VerdictWA},
		{"space_change_sensitive: tab for space", Tokens, Options{SpaceSensitive: true}, "1\t2\n", "1 2\n", job.VerdictWA},
		{"non-breaking space is not whitespace", Tokens, Options{}, "1\u00a02\n", "1 2\n", job.VerdictWA},
		{"absolute tolerance", Float, Options{Float: true, AbsTol: 1e-6}, "0.1000005", "0.1", job.VerdictAC},
		{"absolute tolerance exceeded", Float, Options{Float: true, AbsTol: 1e-6}, "0.100002", "0.1", job.VerdictWA},
		{"relative tolerance", Float, Options{Float: true, RelTol: 1e-6}, "1000000.9", "1000000", job.VerdictAC},
		{"relative tolerance exceeded", Float, Options{Float: true, RelTol: 1e-6}, "1000002", "1000000", job.VerdictWA},
		{"either tolerance accepts", Float, Options{Float: true, AbsTol: 1e-9, RelTol: 1e-3}, "1.0005", "1", job.VerdictAC},
		{"any float formatting", Float, Options{Float: true, AbsTol: 1e-9}, "3.14000000e-2", "0.0314", job.VerdictAC},
		{"integers are floats under a tolerance", Float, Options{Float: true, AbsTol: 1e-6}, "2.0e2", "200", job.VerdictAC},
		{"a word where a number is due", Float, Options{Float: true, AbsTol: 1}, "one", "1", job.VerdictWA},
		{"hex is not a float", Float, Options{Float: true, AbsTol: 1}, "0x1", "1", job.VerdictWA},
		{"words fold under float too", Float, Options{Float: true, AbsTol: 1e-6, CaseInsensitive: true}, "Impossible 1.0", "IMPOSSIBLE 1", job.VerdictAC},
		{"leading dot and trailing dot", Float, Options{Float: true, AbsTol: 1e-9}, ".5 5.", "0.5 5", job.VerdictAC},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := CompareWith(c.mode, c.o, []byte(c.out), []byte(c.ans))
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != c.want {
				t.Fatalf("verdict %s (%s), want %s", r.Verdict, r.CheckerMessage, c.want)
			}
			if !safeMessage.MatchString(r.Message) {
				t.Fatalf("message %q is not one of the contestant-safe texts", r.Message)
			}
		})
	}
}

func TestParseDecimal(t *testing.T) {
	for s, ok := range map[string]bool{"1": true, "-1.5": true, "+.5": true, "5.": true, "1e10": true, "1E-3": true,
		".": false, "e5": false, "1e": false, "1.2.3": false, "inf": false, "nan": false, "0x10": false, "1_000": false, "": false} {
		if _, got := parseDecimal([]byte(s)); got != ok {
			t.Errorf("parseDecimal(%q) = %v, want %v", s, got, ok)
		}
	}
}

func TestKattisMapping(t *testing.T) {
	team := []byte("your tour visits city 3 twice\n")
	judge := []byte("expected 17, found 19 on input 4000\n")
	cases := []struct {
		name    string
		ok      bool
		code    int
		fb      Feedback
		want    job.Verdict
		message string
	}{
		{"42 accepts", true, 42, Feedback{}, job.VerdictAC, ""},
		{"43 rejects with the team message", true, 43, Feedback{TeamMessage: team, JudgeMessage: judge}, job.VerdictWA, "your tour visits city 3 twice"},
		{"43 without a team message", true, 43, Feedback{JudgeMessage: judge}, job.VerdictWA, "wrong answer"},
		{"0 is a judge error", true, 0, Feedback{}, job.VerdictSE, "validator exited 0 (a Kattis validator exits 42 or 43)"},
		{"1 is a judge error", true, 1, Feedback{}, job.VerdictSE, "validator exited 1 (a Kattis validator exits 42 or 43)"},
		{"a crash is a judge error", false, 0, Feedback{}, job.VerdictSE, "validator crashed or exceeded its limits"},
		{"unreadable feedback", true, 42, Feedback{Err: errors.New("judgemessage.txt is a link")}, job.VerdictSE, "validator left unreadable feedback"},
		{"score with multiplier", true, 42, Feedback{Score: []byte("3"), ScoreMultiplier: []byte("0.5")}, job.VerdictSE, "validator wrote both score.txt and score_multiplier.txt"},
		{"bad score", true, 42, Feedback{Score: []byte("lots")}, job.VerdictSE, "validator wrote an invalid score.txt"},
		{"negative score", true, 42, Feedback{Score: []byte("-1")}, job.VerdictSE, "validator wrote an invalid score.txt"},
		{"infinite score", true, 42, Feedback{Score: []byte("inf")}, job.VerdictSE, "validator wrote an invalid score.txt"},
		{"NaN score", true, 42, Feedback{Score: []byte("NaN")}, job.VerdictSE, "validator wrote an invalid score.txt"},
		{"score past the bound", true, 42, Feedback{Score: []byte("1e302")}, job.VerdictSE, "validator wrote a score.txt past oj's bound"},
		{"NaN multiplier", true, 42, Feedback{ScoreMultiplier: []byte("nan")}, job.VerdictSE, "validator wrote an invalid score_multiplier.txt"},
		{"multiplier out of range", true, 42, Feedback{ScoreMultiplier: []byte("1.5")}, job.VerdictSE, "validator wrote an invalid score_multiplier.txt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Kattis(c.ok, c.code, c.fb, nil)
			if r.Verdict != c.want || r.Message != c.message {
				t.Fatalf("got %s %q, want %s %q", r.Verdict, r.Message, c.want, c.message)
			}
			if c.fb.JudgeMessage != nil && !strings.Contains(r.CheckerMessage, "found 19") {
				t.Fatalf("the judge message %q did not reach the admins' text", r.CheckerMessage)
			}
			if strings.Contains(r.Message, "found 19") {
				t.Fatalf("the judge message reached the owner: %q", r.Message)
			}
		})
	}
	if r := Kattis(true, 42, Feedback{Score: []byte("1e9")}, nil); !r.HasScore || r.Score != job.MaxScore {
		t.Fatalf("a score.txt at the bound: %+v", r)
	}
	r := Kattis(true, 42, Feedback{Score: []byte("12.5\n")}, nil)
	if !r.HasScore || r.Score != 12.5 || r.Verdict != job.VerdictAC {
		t.Fatalf("score.txt: %+v", r)
	}
	r = Kattis(true, 42, Feedback{ScoreMultiplier: []byte("0.25")}, nil)
	if r.HasScore || r.Points != 0.25 {
		t.Fatalf("score_multiplier.txt: %+v", r)
	}
	r = Kattis(true, 43, Feedback{}, []byte("stderr says why"))
	if r.CheckerMessage != "stderr says why" {
		t.Fatalf("stderr is the admins' message without judgemessage.txt: %q", r.CheckerMessage)
	}
}
