package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"oj/core/wire"
)

// The verification table says when a time was divided by its language's time factor, and
// which factor multiplied a row's limit: nobody reads 710 ms as a measured time, or a
// 2 s limit as the problem's.
func TestVerificationTableSaysWhereTheTimeFactorApplies(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	r := lipgloss.NewRenderer(&b)
	r.SetColorProfile(termenv.Ascii)
	printVerification(&printer{w: &b, r: r}, &wire.Verification{ID: 3, ProblemID: "p", Version: 1, State: "passed",
		LimitMS: 1000, Derived: true, RunLimitMS: 10000, SlowestACMS: 710, SlowestACSource: "Main.java",
		SlowestACLanguage: "java", SlowestACMeasuredMS: 1420, SlowestACFactor: 2, Margin: 1.41,
		Rows: []wire.VerifyRow{{Source: "Main.java", Language: "java", Expect: []string{"AC"}, Got: "AC", Run: "AC",
			TimeMS: 1420, LimitMS: 2000, TimeFactor: 2, Status: "as_labeled"}}, Summary: "1 as labeled, 0 not"})
	out := b.String()
	for _, want := range []string{"java: 1420 ms measured, 710 ms after the language's time factor 2 (Main.java), margin 1.41×",
		"1.4s / 2s (1s × 2)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
}
