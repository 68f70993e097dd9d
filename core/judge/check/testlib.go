package check

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"oj/core/job"
)

// testlib's exit codes.
const (
	ExitOK      = 0
	ExitWA      = 1
	ExitPE      = 2
	ExitFail    = 3
	ExitPoints  = 7
	maxMsgBytes = 1024
)

// Testlib maps a testlib-protocol program's end (a checker or an interactor) to a
// result: exit 0 AC, 1 WA, 2 PE, 7 partial points, and anything else — exit 3 (the
// checker's own failure), another code, a signal, a resource limit — SE: a broken
// checker must never pass a solution. For 7 the points are the first number of the
// checker's message (stderr, or stdout when stderr is empty), after an optional word
// "points"; they are the fraction of the case's score in [0, 1], 1 meaning AC.
// ok says whether the program ended normally (not killed, not over a limit).
//
// A checker reads the input and the answer and may print either, so its message goes to
// CheckerMessage only; Message is a fixed text per outcome.
func Testlib(ok bool, exitCode int, stdout, stderr []byte) Result {
	msg := stderr
	if len(bytes.TrimSpace(msg)) == 0 {
		msg = stdout
	}
	text := clip(msg)
	res := func(v job.Verdict, points float64, safe, full string) Result {
		return Result{Verdict: v, Points: points, Message: safe, CheckerMessage: full}
	}
	if !ok {
		const s = "checker crashed or exceeded its limits"
		return res(job.VerdictSE, 0, s, s+": "+text)
	}
	switch exitCode {
	case ExitOK:
		return res(job.VerdictAC, 1, "", text)
	case ExitWA:
		return res(job.VerdictWA, 0, "wrong answer", text)
	case ExitPE:
		return res(job.VerdictPE, 0, "presentation error", text)
	case ExitPoints:
		p, err := parsePoints(text)
		if err != nil {
			const s = "checker gave invalid partial points"
			return res(job.VerdictSE, 0, s, fmt.Sprintf("%s: %v: %s", s, err, text))
		}
		switch {
		case p >= 1:
			return res(job.VerdictAC, 1, "", text)
		case p <= 0:
			return res(job.VerdictWA, 0, "wrong answer (no points)", text)
		}
		return res(job.VerdictPC, p, fmt.Sprintf("partially correct: %g of the case's points", p), text)
	case ExitFail:
		return res(job.VerdictSE, 0, "checker failed", "checker failed: "+text)
	}
	s := fmt.Sprintf("checker exited %d", exitCode)
	return res(job.VerdictSE, 0, s, s+": "+text)
}

func parsePoints(msg string) (float64, error) {
	f := strings.Fields(msg)
	if len(f) > 0 && strings.EqualFold(f[0], "points") {
		f = f[1:]
	}
	if len(f) == 0 {
		return 0, fmt.Errorf("no points in %q", msg)
	}
	p, err := strconv.ParseFloat(f[0], 64)
	if err != nil || math.IsNaN(p) || p < 0 || p > 1 {
		return 0, fmt.Errorf("points %q not a number in [0, 1]", f[0])
	}
	return p, nil
}

// clip bounds a checker's message. What PostgreSQL cannot hold (NUL, invalid UTF-8) is
// replaced in one place, where text enters the store (store.Text), not here.
func clip(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > maxMsgBytes {
		s = s[:maxMsgBytes] + "…"
	}
	return s
}
