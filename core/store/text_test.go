package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgxpool"

	"oj/core/job"
	"oj/core/store"
	"oj/core/testenv"
)

func TestTextReplacesOnlyWhatPostgresCannotHold(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"clean text is returned as is", "wrong answer: expected 3, found 4", "wrong answer: expected 3, found 4"},
		{"empty", "", ""},
		{"NUL bytes", "found \x00 here\x00", "found \uFFFD here\uFFFD"},
		{"invalid UTF-8", "bad \xff\xfe byte", "bad \uFFFD byte"},
		{"both", "\x00\xc3", "\uFFFD\uFFFD"},
		{"the text \\u0000 is not a NUL", `printf("\u0000")`, `printf("\u0000")`},
		{"multi-byte runes survive", "ответ: 3 ✓", "ответ: 3 ✓"},
	}
	for _, tc := range tests {
		if got := store.Text(tc.in); got != tc.want {
			t.Errorf("%s: Text(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// Text a contestant or a checker controls reaches PostgreSQL only through the store, which
// makes it storable: NUL bytes and invalid UTF-8 in a case message, the compile output, the
// error, a retry's cause, a history detail or a progress notification are stored as U+FFFD
// instead of failing the statement (SQLSTATE 22021 / 22P05).
func TestHostileTextIsStorable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.DB(t)
	now := time.Now()
	hostile := "a\x00b\xffc"
	const clean = "a\uFFFDb\uFFFDc"

	id := submit(t, db, 3)
	l := claim(t, db, id, "w1", now)
	if err := store.NotifyCase(ctx, db, id, l.Attempt, job.CaseResult{Index: 1, Verdict: job.VerdictWA, Message: hostile, CheckerMessage: hostile}); err != nil {
		t.Fatalf("progress with a NUL: %v", err)
	}
	out := job.Outcome{Verdict: job.VerdictWA, CompileOutput: hostile,
		Cases: []job.CaseResult{{Index: 1, Verdict: job.VerdictWA, Message: hostile + ` and a literal \u0000`, CheckerMessage: hostile}}}
	errs, err := store.FinalizeBatch(ctx, db, "w1", []store.Result{{Lease: l, Outcome: out}}, now.Add(time.Second))
	if err != nil || errs[0] != nil {
		t.Fatalf("finalize with NUL bytes: %v %v", err, errs)
	}
	s, err := store.GetSubmission(ctx, db, id)
	if err != nil {
		t.Fatal(err)
	}
	if s.Verdict != job.VerdictWA || s.CompileOutput != clean || len(s.Cases) != 1 ||
		s.Cases[0].Message != clean+` and a literal \u0000` || s.Cases[0].CheckerMessage != clean {
		t.Fatalf("stored: verdict %s, compile output %q, cases %+v", s.Verdict, s.CompileOutput, s.Cases)
	}

	// A judge error echoing a NUL, through a retry and then the dead letter.
	dead := submit(t, db, 1)
	ld := claim(t, db, dead, "w1", now)
	st, err := store.EndAttempt(ctx, db, "w1", ld, store.Ending{Cause: "judge: " + hostile, CountsAsFailure: true}, now.Add(time.Second))
	if err != nil || st != job.StateDead {
		t.Fatalf("end attempt with a NUL cause: %v %v", st, err)
	}
	if s, err := store.GetSubmission(ctx, db, dead); err != nil || s.LastError != "judge: "+clean {
		t.Fatalf("last error: %q %v", s.LastError, err)
	}
	if n := count(t, db, `SELECT count(*) FROM dead_letters WHERE submission_id = $1 AND last_error = $2`, dead, "judge: "+clean); n != 1 {
		t.Fatalf("dead letter with the cleaned cause: %d", n)
	}
	if err := store.AddHistory(ctx, db, store.History{SubmissionID: dead, Event: "replayed", Actor: hostile, Detail: hostile}); err != nil {
		t.Fatalf("history with a NUL: %v", err)
	}
	if err := store.AddAudit(ctx, db, store.Audit{Actor: "admin", Action: "cancel", Params: map[string]any{"id": hostile}}); err != nil {
		t.Fatalf("audit with a NUL: %v", err)
	}
	// A problem setter's title and metadata.
	if _, err := store.CreateProblemVersion(ctx, db, store.ProblemVersion{ProblemID: "nul", SHA256: strings.Repeat("a", 64),
		Title: hostile, TimeLimitMS: 1000, MemoryLimitMB: 64, CaseCount: 1, Meta: map[string]any{"checker": hostile}}); err != nil {
		t.Fatalf("problem with a NUL title: %v", err)
	}
	if pv, err := store.LatestProblem(ctx, db, "nul"); err != nil || pv.Title != clean || pv.Meta["checker"] != clean {
		t.Fatalf("problem: %+v %v", pv, err)
	}
}

// What retrying cannot fix is told apart from what it can: data exceptions (class 22),
// constraint violations (class 23) and values that cannot be encoded are permanent;
// connection trouble is not.
func TestPermanentErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.DB(t)
	now := time.Now()
	pgErr := func(sql string) error {
		_, err := db.Exec(ctx, sql)
		if err == nil {
			t.Fatalf("%s: no error", sql)
		}
		return err
	}
	finalizeErr := func(out job.Outcome) error {
		id := submit(t, db, 3)
		_, err := store.FinalizeBatch(ctx, db, "w1", []store.Result{{Lease: claim(t, db, id, "w1", now), Outcome: out}}, now)
		return err
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_, canceledErr := db.Exec(canceled, `SELECT 1`)
	down, err := pgxpool.New(ctx, "postgres://postgres@127.0.0.1:1/oj?sslmode=disable&connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	_, downErr := down.Exec(ctx, `SELECT 1`)

	tests := []struct {
		name      string
		err       error
		permanent bool
	}{
		{"invalid text for a type (22P02)", pgErr(`SELECT 'not-a-uuid'::uuid`), true},
		{"NUL in jsonb (22P05)", pgErr(`SELECT '"\u0000"'::jsonb`), true},
		{"check violation (23514)", pgErr(`INSERT INTO api_tokens (name, role, hash) VALUES ('x', 'root', '\x00')`), true},
		{"time too large for its column (22003)", finalizeErr(job.Outcome{Verdict: job.VerdictAC, TimeMS: 1 << 40}), true},
		{"a case score JSON cannot hold", finalizeErr(job.Outcome{Verdict: job.VerdictPC,
			Cases: []job.CaseResult{{Index: 1, Verdict: job.VerdictPC, Score: math.NaN()}}}), true},
		{"a score float8 holds but no answer renders", finalizeErr(job.Outcome{Verdict: job.VerdictAC, Score: math.Inf(1)}), true},
		{"a case score past the bound", finalizeErr(job.Outcome{Verdict: job.VerdictAC, Score: 1,
			Cases: []job.CaseResult{{Index: 1, Verdict: job.VerdictAC, Score: 1e302}}}), true},
		{"canceled context", canceledErr, false},
		{"PostgreSQL unreachable", downErr, false},
		{"syntax error (a bug, not the data)", pgErr(`SELEC 1`), false},
		{"nil", nil, false},
	}
	for _, tc := range tests {
		if got := store.Permanent(tc.err); got != tc.permanent {
			t.Errorf("%s: Permanent(%v) = %v, want %v", tc.name, tc.err, got, tc.permanent)
		}
	}
	if err := finalizeErr(job.Outcome{Verdict: job.VerdictAC, TimeMS: 1 << 40}); err == nil || !strings.Contains(err.Error(), "22003") {
		t.Errorf("out-of-range time: %v, want SQLSTATE 22003", err)
	}
	if err := finalizeErr(job.Outcome{Verdict: job.VerdictPC, Cases: []job.CaseResult{{Score: math.Inf(1)}}}); !errors.Is(err, store.ErrUnstorable) {
		t.Errorf("infinite case score: %v, want ErrUnstorable", err)
	}
}

// Whatever a contestant or a checker writes, the store's text and JSON are storable: no
// NUL, valid UTF-8, and clean text passes unchanged.
func FuzzStorableText(f *testing.F) {
	for _, s := range []string{"", "ok", "a\x00b", "\xff\xfe", `\u0000`, "\\\x00", `\\u0000`, "ответ\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		clean := store.Text(s)
		if strings.IndexByte(clean, 0) >= 0 || !utf8.ValidString(clean) || store.Text(clean) != clean {
			t.Fatalf("Text(%q) = %q", s, clean)
		}
		if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) && clean != s {
			t.Fatalf("clean text changed: %q -> %q", s, clean)
		}
		b, err := store.JSONValue(map[string]string{"message": s})
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("JSON %s: %v", b, err)
		}
		if m := back["message"]; strings.IndexByte(m, 0) >= 0 || !utf8.ValidString(m) {
			t.Fatalf("JSON of %q holds %q", s, m)
		}
		if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) && back["message"] != s {
			t.Fatalf("clean text changed in JSON: %q -> %q", s, back["message"])
		}
	})
}
