package job

import (
	"fmt"
	"math"
)

// MaxScore bounds every score oj handles: a problem's most, a group's, a case's (a
// validator's score.txt included) and a submission's, |score| ≤ MaxScore. Scores are
// kept to six decimals in float64 (PostgreSQL float8, JSON numbers that JavaScript reads
// as doubles); up to 1e9 a score's millionths are still exact (1e9 × 1e6 = 1e15 <
// 2^53), and sums of bounded scores over a package's cases stay far from overflow. Real
// packages score in the hundreds or thousands (IOI 100, Codeforces points, Kattis
// ranges): the bound takes away no real problem, and a score outside it is a broken
// package or validator — refused at upload, an SE at judging, never a stored number
// that cannot be rendered (NaN and ±Inf have no JSON form).
const MaxScore = 1e9

// ScoreOK reports whether x is a score oj can store and render: finite and within
// ±MaxScore.
func ScoreOK(x float64) bool { return !math.IsNaN(x) && math.Abs(x) <= MaxScore }

// CheckScore explains why x is not a storable score (nil when it is); what names the
// value in the message.
func CheckScore(what string, x float64) error {
	if ScoreOK(x) {
		return nil
	}
	return fmt.Errorf("%s %v is not a finite number within ±%g", what, x, MaxScore)
}

// CheckOutcome checks every score of o (the submission's and each case's): a value
// PostgreSQL would store but no answer could render.
func CheckOutcome(o Outcome) error {
	if err := CheckScore("score", o.Score); err != nil {
		return err
	}
	for _, c := range o.Cases {
		if err := CheckScore(fmt.Sprintf("case %d score", c.Index), c.Score); err != nil {
			return err
		}
	}
	return nil
}
