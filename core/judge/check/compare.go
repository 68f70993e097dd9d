// Package check decides a case from the solution's output: the built-in compare modes
// (lines, exact, tokens, float) and the mapping of a testlib-protocol checker's or
// interactor's exit status to a verdict.
package check

import (
	"bytes"
	"fmt"
	"math"
	"strconv"

	"oj/core/job"
)

// Result is a checker's decision for one case: Points is the fraction of the case's
// score earned (1 for AC, 0 for WA/PE, in between for PC).
type Result struct {
	Verdict job.Verdict
	Points  float64
	Message string
}

// The compare modes.
const (
	Lines  = "lines"
	Exact  = "exact"
	Tokens = "tokens"
	Float  = "float"
)

func ac() Result { return Result{Verdict: job.VerdictAC, Points: 1} }

// Compare compares a solution's output with the answer. Modes:
//   - lines: equal once trailing whitespace of every line and trailing blank lines are
//     dropped → AC; otherwise equal as tokens → PE; otherwise WA.
//   - exact: byte-equal → AC; equal as tokens → PE; otherwise WA.
//   - tokens: equal as whitespace-separated tokens → AC; otherwise WA.
//   - float: tokens pairwise equal, numbers within eps (absolute or relative) → AC.
func Compare(mode string, eps float64, out, ans []byte) (Result, error) {
	switch mode {
	case Lines:
		if bytes.Equal(normLines(out), normLines(ans)) {
			return ac(), nil
		}
		return spacing(out, ans), nil
	case Exact:
		if bytes.Equal(out, ans) {
			return ac(), nil
		}
		return spacing(out, ans), nil
	case Tokens:
		if msg := diffTokens(out, ans, 0); msg != "" {
			return Result{Verdict: job.VerdictWA, Message: msg}, nil
		}
		return ac(), nil
	case Float:
		if msg := diffTokens(out, ans, eps); msg != "" {
			return Result{Verdict: job.VerdictWA, Message: msg}, nil
		}
		return ac(), nil
	}
	return Result{}, fmt.Errorf("unknown compare mode %q", mode)
}

// spacing decides a mismatch: PE when only the whitespace differs.
func spacing(out, ans []byte) Result {
	if diffTokens(out, ans, 0) == "" {
		return Result{Verdict: job.VerdictPE, Message: "wrong whitespace"}
	}
	return Result{Verdict: job.VerdictWA, Message: diffTokens(out, ans, 0)}
}

// normLines drops trailing whitespace on each line and trailing blank lines; \r\n
// counts as \n.
func normLines(b []byte) []byte {
	lines := bytes.Split(b, []byte("\n"))
	for i, l := range lines {
		lines[i] = bytes.TrimRight(l, " \t\r\f\v")
	}
	for len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return bytes.Join(lines, []byte("\n"))
}

// diffTokens returns "" when out and ans have the same tokens (numbers within eps when
// eps > 0), else a short description of the first difference.
func diffTokens(out, ans []byte, eps float64) string {
	o, a := bytes.Fields(out), bytes.Fields(ans)
	for i := 0; i < len(o) && i < len(a); i++ {
		if bytes.Equal(o[i], a[i]) {
			continue
		}
		if eps > 0 && floatsClose(o[i], a[i], eps) {
			continue
		}
		return fmt.Sprintf("token %d: expected %s, found %s", i+1, excerpt(a[i]), excerpt(o[i]))
	}
	switch {
	case len(o) < len(a):
		return fmt.Sprintf("output ends after %d tokens, expected %d", len(o), len(a))
	case len(o) > len(a):
		return fmt.Sprintf("extra output after %d tokens", len(a))
	}
	return ""
}

func floatsClose(o, a []byte, eps float64) bool {
	x, err1 := strconv.ParseFloat(string(o), 64)
	y, err2 := strconv.ParseFloat(string(a), 64)
	if err1 != nil || err2 != nil || math.IsNaN(x) || math.IsNaN(y) {
		return false
	}
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return x == y
	}
	d := math.Abs(x - y)
	return d <= eps || d <= eps*math.Abs(y)
}

func excerpt(b []byte) string {
	if len(b) > 32 {
		return strconv.Quote(string(b[:32])) + "…"
	}
	return strconv.Quote(string(b))
}
