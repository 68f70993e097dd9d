package check

import (
	"regexp"
	"strings"
	"testing"

	"oj/core/job"
)

func TestCompare(t *testing.T) {
	cases := []struct {
		name, mode string
		eps        float64
		out, ans   string
		want       job.Verdict
	}{
		{"lines equal", Lines, 0, "3\n", "3\n", job.VerdictAC},
		{"lines trailing space", Lines, 0, "1 2 \n3\t\n", "1 2\n3\n", job.VerdictAC},
		{"lines missing final newline", Lines, 0, "3", "3\n", job.VerdictAC},
		{"lines trailing blank lines", Lines, 0, "3\n\n\n", "3\n", job.VerdictAC},
		{"lines crlf", Lines, 0, "1\r\n2\r\n", "1\n2\n", job.VerdictAC},
		{"lines inner spacing is PE", Lines, 0, "1  2\n", "1 2\n", job.VerdictPE},
		{"lines joined lines is PE", Lines, 0, "1 2\n", "1\n2\n", job.VerdictPE},
		{"lines wrong", Lines, 0, "4\n", "3\n", job.VerdictWA},
		{"lines empty vs answer", Lines, 0, "", "3\n", job.VerdictWA},
		{"exact equal", Exact, 0, "3\n", "3\n", job.VerdictAC},
		{"exact trailing space is PE", Exact, 0, "3 \n", "3\n", job.VerdictPE},
		{"exact wrong", Exact, 0, "4\n", "3\n", job.VerdictWA},
		{"tokens any spacing", Tokens, 0, "1\n\n  2", "1 2\n", job.VerdictAC},
		{"tokens extra", Tokens, 0, "1 2 3", "1 2", job.VerdictWA},
		{"tokens short", Tokens, 0, "1", "1 2", job.VerdictWA},
		{"float within abs eps", Float, 1e-6, "0.3333333", "0.33333333", job.VerdictAC},
		{"float within rel eps", Float, 1e-6, "1000000.5", "1000000.0", job.VerdictAC},
		{"float off", Float, 1e-6, "0.334", "0.333333", job.VerdictWA},
		{"float nan", Float, 1e-6, "nan", "0", job.VerdictWA},
		{"float words must match", Float, 1e-6, "YES 1.0", "NO 1.0", job.VerdictWA},
		{"float exponent", Float, 1e-6, "1e-3", "0.001", job.VerdictAC},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Compare(c.mode, c.eps, []byte(c.out), []byte(c.ans))
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != c.want {
				t.Fatalf("verdict %s (%s), want %s", r.Verdict, r.Message, c.want)
			}
			if (r.Verdict == job.VerdictAC) != (r.Points == 1) {
				t.Fatalf("points %v with verdict %s", r.Points, r.Verdict)
			}
			if !safeMessage.MatchString(r.Message) {
				t.Fatalf("message %q is not one of the contestant-safe texts", r.Message)
			}
		})
	}
	if _, err := Compare("magic", 0, nil, nil); err == nil {
		t.Fatal("unknown mode accepted")
	}
}

// safeMessage is every text a built-in compare mode may show a contestant: positions and
// the solution's own token count, never a token.
var safeMessage = regexp.MustCompile(`^(|wrong whitespace|token [0-9]+ differs from the expected answer|` +
	`output ends too early, after [0-9]+ tokens|output goes on after the expected answer ends)$`)

func TestCompareKeepsTheAnswerFromTheContestant(t *testing.T) {
	cases := []struct {
		name, mode      string
		out, ans        string
		message, detail string
	}{
		{"wrong token", Tokens, "12\n", "11\n", "token 1 differs from the expected answer", `token 1: expected "11", found "12"`},
		{"wrong line", Lines, "1 2\nsecret\n", "1 2\nhidden\n", "token 3 differs from the expected answer", `expected "hidden", found "secret"`},
		{"wrong float", Float, "0.5 0.7", "0.5 0.25", "token 2 differs from the expected answer", `expected "0.25", found "0.7"`},
		{"short output", Exact, "1 2 3", "1 2 3 4 5", "output ends too early, after 3 tokens", "output ends after 3 tokens, expected 5"},
		{"long output", Tokens, "1 2 3 4 5", "1 2 3", "output goes on after the expected answer ends", "extra output after 3 tokens (5 in all)"},
		{"whitespace", Exact, "1  2\n", "1 2\n", "wrong whitespace", "wrong whitespace"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Compare(c.mode, 1e-6, []byte(c.out), []byte(c.ans))
			if err != nil {
				t.Fatal(err)
			}
			if r.Message != c.message {
				t.Fatalf("contestant's message %q, want %q", r.Message, c.message)
			}
			if !strings.Contains(r.CheckerMessage, c.detail) {
				t.Fatalf("admin's message %q, want it to say %q", r.CheckerMessage, c.detail)
			}
			for _, tok := range strings.Fields(c.ans + " " + c.out) {
				if len(tok) > 1 && strings.Contains(r.Message, tok) {
					t.Fatalf("contestant's message %q quotes %q", r.Message, tok)
				}
			}
		})
	}
}

func TestTestlibMessagesGoToAdminsOnly(t *testing.T) {
	secret := "expected 4242, the input was 4000 242"
	for _, c := range []struct {
		ok   bool
		code int
		msg  string
	}{
		{true, ExitOK, "ok " + secret}, {true, ExitWA, secret}, {true, ExitPE, secret},
		{true, ExitPoints, "points 0.5 " + secret}, {true, ExitPoints, "nonsense " + secret},
		{true, ExitFail, secret}, {true, 42, secret}, {false, 0, secret},
	} {
		r := Testlib(c.ok, c.code, nil, []byte(c.msg))
		if strings.Contains(r.Message, "4242") || strings.Contains(r.Message, "4000") {
			t.Fatalf("exit %d: contestant's message %q holds the checker's text", c.code, r.Message)
		}
		if !strings.Contains(r.CheckerMessage, "4242") {
			t.Fatalf("exit %d: admin's message %q lost the checker's text", c.code, r.CheckerMessage)
		}
		if r.Verdict != job.VerdictAC && r.Message == "" {
			t.Fatalf("exit %d: %s without a message", c.code, r.Verdict)
		}
	}
	// The checker's bytes reach the admins' text as they are (the store makes them
	// storable); the owner's text is one of the fixed ones whatever the checker wrote.
	r := Testlib(true, ExitWA, nil, []byte("a\x00b\xffc"))
	if r.CheckerMessage != "a\x00b\xffc" || r.Message != "wrong answer" {
		t.Fatalf("message %q, checker message %q", r.Message, r.CheckerMessage)
	}
}

func TestTestlibMapping(t *testing.T) {
	cases := []struct {
		name   string
		ok     bool
		code   int
		stderr string
		want   job.Verdict
		points float64
	}{
		{"ok", true, 0, "ok 1 number", job.VerdictAC, 1},
		{"wrong answer", true, 1, "wrong answer expected 3", job.VerdictWA, 0},
		{"presentation", true, 2, "pe", job.VerdictPE, 0},
		{"fail is SE", true, 3, "fail: bad answer file", job.VerdictSE, 0},
		{"partial", true, 7, "points 0.25 close", job.VerdictPC, 0.25},
		{"partial bare number", true, 7, "0.5", job.VerdictPC, 0.5},
		{"partial full", true, 7, "1", job.VerdictAC, 1},
		{"partial zero", true, 7, "0", job.VerdictWA, 0},
		{"partial garbage", true, 7, "lots", job.VerdictSE, 0},
		{"partial out of range", true, 7, "points 30", job.VerdictSE, 0},
		{"unknown code", true, 42, "", job.VerdictSE, 0},
		{"crashed", false, 0, "", job.VerdictSE, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Testlib(c.ok, c.code, nil, []byte(c.stderr))
			if r.Verdict != c.want || r.Points != c.points {
				t.Fatalf("got %s %v (%s), want %s %v", r.Verdict, r.Points, r.CheckerMessage, c.want, c.points)
			}
		})
	}
}

func FuzzCompare(f *testing.F) {
	f.Add([]byte("1 2\n"), []byte("1 2\n"))
	f.Add([]byte("0.5\n"), []byte("5e-1"))
	f.Fuzz(func(t *testing.T, out, ans []byte) {
		for _, m := range []string{Lines, Exact, Tokens, Float} {
			r, err := Compare(m, 1e-6, out, ans)
			if err != nil {
				t.Fatal(err)
			}
			if !safeMessage.MatchString(r.Message) {
				t.Fatalf("%s: message %q is not one of the contestant-safe texts", m, r.Message)
			}
			self, _ := Compare(m, 1e-6, ans, ans)
			if self.Verdict != job.VerdictAC {
				// NaN tokens do not equal themselves under float; everything else must.
				if m != Float {
					t.Fatalf("%s: answer against itself: %s", m, self.Verdict)
				}
			}
		}
	})
}
