// Package check decides a case from the solution's output: the built-in compare modes
// (lines, exact, tokens, float) and the mapping of a testlib-protocol checker's or
// interactor's exit status to a verdict.
//
// Every Result carries two texts. Message is shown to the submission's owner and never
// holds the expected answer or the test input (DESIGN.md, "Submission states and
// verdicts"); CheckerMessage is the checker's whole message, for admins only.
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
	// Message is safe to show the contestant: it may say where the output differs and
	// count tokens, but it never quotes the answer, the input or the solution's output
	// (which may be a copy of the input).
	Message string
	// CheckerMessage is the checker's whole message (the answer's tokens included),
	// shown to admins only.
	CheckerMessage string
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
		if d := diffTokens(out, ans, 0); d.differs() {
			return d.result(), nil
		}
		return ac(), nil
	case Float:
		if d := diffTokens(out, ans, eps); d.differs() {
			return d.result(), nil
		}
		return ac(), nil
	}
	return Result{}, fmt.Errorf("unknown compare mode %q", mode)
}

// spacing decides a mismatch: PE when only the whitespace differs.
func spacing(out, ans []byte) Result {
	d := diffTokens(out, ans, 0)
	if !d.differs() {
		return Result{Verdict: job.VerdictPE, Message: "wrong whitespace", CheckerMessage: "wrong whitespace"}
	}
	return d.result()
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

// tokenDiff is the first difference between the solution's and the answer's tokens.
type tokenDiff struct {
	index         int // 1-based token where they differ; 0 when one ends first
	found, expect []byte
	nOut, nAns    int
}

func (d tokenDiff) differs() bool { return d.index > 0 || d.nOut != d.nAns }

// result is the WA for d. The contestant's text says where the output goes wrong and
// how long the solution's own output is; it never quotes a token (the answer's, or the
// solution's, which may echo the input) nor the answer's length (which may be the answer).
func (d tokenDiff) result() Result {
	r := Result{Verdict: job.VerdictWA}
	switch {
	case d.index > 0:
		r.Message = fmt.Sprintf("token %d differs from the expected answer", d.index)
		r.CheckerMessage = fmt.Sprintf("token %d: expected %s, found %s", d.index, excerpt(d.expect), excerpt(d.found))
	case d.nOut < d.nAns:
		r.Message = fmt.Sprintf("output ends too early, after %d tokens", d.nOut)
		r.CheckerMessage = fmt.Sprintf("output ends after %d tokens, expected %d", d.nOut, d.nAns)
	default:
		r.Message = "output goes on after the expected answer ends"
		r.CheckerMessage = fmt.Sprintf("extra output after %d tokens (%d in all)", d.nAns, d.nOut)
	}
	return r
}

// diffTokens compares out and ans as whitespace-separated tokens (numbers within eps
// when eps > 0) and returns the first difference, if any.
func diffTokens(out, ans []byte, eps float64) tokenDiff {
	o, a := bytes.Fields(out), bytes.Fields(ans)
	for i := 0; i < len(o) && i < len(a); i++ {
		if bytes.Equal(o[i], a[i]) {
			continue
		}
		if eps > 0 && floatsClose(o[i], a[i], eps) {
			continue
		}
		return tokenDiff{index: i + 1, found: o[i], expect: a[i], nOut: len(o), nAns: len(a)}
	}
	return tokenDiff{nOut: len(o), nAns: len(a)}
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
