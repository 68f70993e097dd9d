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
	"errors"
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
	// Score is the case's own score when HasScore: a Kattis validator's score.txt.
	Score    float64
	HasScore bool
}

// The compare modes.
const (
	Lines  = "lines"
	Exact  = "exact"
	Tokens = "tokens"
	Float  = "float"
)

func ac() Result { return Result{Verdict: job.VerdictAC, Points: 1} }

// Options refine the tokens and float modes; the zero value compares tokens byte for
// byte with any whitespace between them. Together they are the Kattis default output
// validator's flags (case_sensitive, space_change_sensitive, float_absolute_tolerance,
// float_relative_tolerance, float_tolerance).
type Options struct {
	// CaseInsensitive takes ASCII letters A-Z as equal to a-z in tokens that are not
	// compared as numbers (Kattis's default, without case_sensitive).
	CaseInsensitive bool
	// SpaceSensitive requires every run of whitespace (leading and trailing ones too)
	// to be the answer's, byte for byte.
	SpaceSensitive bool
	// Float compares every answer token that is a decimal number with the solution's as
	// numbers: the solution's must be one too (in any decimal formatting: 0.0314 and
	// 3.14e-2 are equal), within AbsTol or within RelTol·|answer| (either accepts; 0 is
	// no tolerance of that kind).
	Float          bool
	AbsTol, RelTol float64
}

// Compare compares a solution's output with the answer. Modes:
//   - lines: equal once trailing whitespace of every line and trailing blank lines are
//     dropped → AC; otherwise equal as tokens → PE; otherwise WA.
//   - exact: byte-equal → AC; equal as tokens → PE; otherwise WA.
//   - tokens: equal as whitespace-separated tokens → AC; otherwise WA.
//   - float: tokens pairwise equal, numbers within eps (absolute or relative) → AC.
//
// Whitespace is space, tab, line feed, carriage return, form feed and vertical tab.
func Compare(mode string, eps float64, out, ans []byte) (Result, error) {
	o := Options{}
	if mode == Float {
		o = Options{Float: true, AbsTol: eps, RelTol: eps}
	}
	return CompareWith(mode, o, out, ans)
}

// CompareWith is Compare with the tokens and float modes refined by o (the lines and
// exact modes take no options).
func CompareWith(mode string, o Options, out, ans []byte) (Result, error) {
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
	case Tokens, Float:
		if mode == Tokens {
			o.Float = false
		}
		if d := diffTokensWith(out, ans, o); d.differs() {
			return d.result(), nil
		}
		if o.SpaceSensitive && !sameSpacing(out, ans) {
			return Result{Verdict: job.VerdictWA, Message: "wrong whitespace", CheckerMessage: "wrong whitespace"}, nil
		}
		return ac(), nil
	}
	return Result{}, fmt.Errorf("unknown compare mode %q", mode)
}

// spacing decides a mismatch: PE when only the whitespace differs.
func spacing(out, ans []byte) Result {
	d := diffTokens(out, ans)
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

// diffTokens compares out and ans as whitespace-separated tokens, byte for byte, and
// returns the first difference, if any.
func diffTokens(out, ans []byte) tokenDiff { return diffTokensWith(out, ans, Options{}) }

// diffTokensWith compares out and ans as whitespace-separated tokens under o.
func diffTokensWith(out, ans []byte, o Options) tokenDiff {
	ot, at := fields(out), fields(ans)
	for i := 0; i < len(ot) && i < len(at); i++ {
		if !tokenEqual(ot[i], at[i], o) {
			return tokenDiff{index: i + 1, found: ot[i], expect: at[i], nOut: len(ot), nAns: len(at)}
		}
	}
	return tokenDiff{nOut: len(ot), nAns: len(at)}
}

// tokenEqual decides one token: an answer token that is a number is compared as one
// when o.Float (the solution's must then be a number too), any other byte for byte,
// or up to ASCII case.
func tokenEqual(out, ans []byte, o Options) bool {
	if o.Float {
		if y, ok := parseDecimal(ans); ok {
			x, ok := parseDecimal(out)
			if !ok {
				return false
			}
			d := math.Abs(x - y)
			return d <= o.AbsTol || d <= o.RelTol*math.Abs(y)
		}
	}
	if o.CaseInsensitive {
		return asciiEqualFold(out, ans)
	}
	return bytes.Equal(out, ans)
}

// parseDecimal parses a token of the Kattis format's float grammar: an optional sign,
// digits with an optional decimal point (1, 1., .5, 1.5), an optional exponent. Hex,
// inf and nan, which strconv would take, are tokens like any other.
func parseDecimal(b []byte) (float64, bool) {
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	digits := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if i < len(b) && b[i] == '.' {
		i++
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		exp := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i, exp = i+1, exp+1
		}
		if exp == 0 {
			return 0, false
		}
	}
	if i != len(b) {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return v, true
}

func asciiEqualFold(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// isSpace is the whitespace that separates tokens: the six ASCII ones, never a
// multi-byte character.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// fields splits b into tokens at runs of isSpace.
func fields(b []byte) [][]byte {
	var out [][]byte
	start := -1
	for i, c := range b {
		switch {
		case isSpace(c) && start >= 0:
			out = append(out, b[start:i])
			start = -1
		case !isSpace(c) && start < 0:
			start = i
		}
	}
	if start >= 0 {
		out = append(out, b[start:])
	}
	return out
}

// sameSpacing reports whether out's runs of whitespace (leading and trailing ones
// included) are ans's, byte for byte; the tokens are already known to match in number.
func sameSpacing(out, ans []byte) bool {
	return bytes.Equal(spaces(out), spaces(ans))
}

// spaces is b's whitespace with each token replaced by one NUL, so that runs stay apart.
func spaces(b []byte) []byte {
	out := make([]byte, 0, 64)
	in := false
	for _, c := range b {
		switch {
		case isSpace(c):
			out, in = append(out, c), false
		case !in:
			out, in = append(out, 0), true
		}
	}
	return out
}

func excerpt(b []byte) string {
	if len(b) > 32 {
		return strconv.Quote(string(b[:32])) + "…"
	}
	return strconv.Quote(string(b))
}
