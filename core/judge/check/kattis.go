package check

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"oj/core/job"
)

// The Kattis output validator protocol's exit codes.
const (
	ExitKattisAC = 42
	ExitKattisWA = 43
)

// Feedback is what a Kattis validator left in its feedback directory (each file's
// start, bounded by the caller; nil when it wrote none).
type Feedback struct {
	JudgeMessage    []byte // judgemessage.txt: for the admins
	TeamMessage     []byte // teammessage.txt: for the submission's owner
	Score           []byte // score.txt: the case's score (scoring problems)
	ScoreMultiplier []byte // score_multiplier.txt: a fraction of the case's score
	// Err is set when a feedback file could not be read (a symlink, a directory where a
	// file belongs): the validator's fault.
	Err error
}

// Kattis maps a Kattis-protocol validator's end to a result: exit 42 AC, 43 WA, and
// anything else — another code (0 included), a signal, a resource limit — SE: a
// validator that fails must never pass or fail a solution. teammessage.txt is the
// owner's message (the problem setter wrote it for them); judgemessage.txt, or the
// validator's standard error when there is none, the admins'. An accepting validator
// may give the case a score (score.txt, a number in [0, job.MaxScore]) or a fraction of it
// (score_multiplier.txt, in [0, 1]), never both: Result.Score and HasScore, or
// Result.Points for the fraction.
func Kattis(ok bool, exitCode int, fb Feedback, stderr []byte) Result {
	judge := clip(fb.JudgeMessage)
	if judge == "" {
		judge = clip(stderr)
	}
	team := clip(fb.TeamMessage)
	se := func(safe, detail string) Result {
		return Result{Verdict: job.VerdictSE, Message: safe, CheckerMessage: strings.TrimSpace(detail + ": " + judge)}
	}
	switch {
	case !ok:
		return se("validator crashed or exceeded its limits", "validator crashed or exceeded its limits")
	case fb.Err != nil:
		return se("validator left unreadable feedback", fmt.Sprintf("validator left unreadable feedback: %v", fb.Err))
	case exitCode == ExitKattisWA:
		msg := team
		if msg == "" {
			msg = "wrong answer"
		}
		return Result{Verdict: job.VerdictWA, Message: msg, CheckerMessage: judge}
	case exitCode != ExitKattisAC:
		s := fmt.Sprintf("validator exited %d (a Kattis validator exits 42 or 43)", exitCode)
		return se(s, s)
	}
	r := Result{Verdict: job.VerdictAC, Points: 1, Message: team, CheckerMessage: judge}
	switch {
	case fb.Score != nil && fb.ScoreMultiplier != nil:
		return se("validator wrote both score.txt and score_multiplier.txt", "validator wrote both score.txt and score_multiplier.txt")
	case fb.Score != nil:
		v, err := number(fb.Score)
		if err != nil || v < 0 {
			return se("validator wrote an invalid score.txt", fmt.Sprintf("score.txt %q is not a number ≥ 0", clip(fb.Score)))
		}
		if !job.ScoreOK(v) {
			// Past the bound a sum of such scores overflows, and none could be shown.
			return se("validator wrote a score.txt past oj's bound",
				fmt.Sprintf("score.txt %q is more than oj's bound of %g", clip(fb.Score), job.MaxScore))
		}
		r.Score, r.HasScore = v, true
	case fb.ScoreMultiplier != nil:
		v, err := number(fb.ScoreMultiplier)
		if err != nil || v < 0 || v > 1 {
			return se("validator wrote an invalid score_multiplier.txt", fmt.Sprintf("score_multiplier.txt %q is not a number in [0, 1]", clip(fb.ScoreMultiplier)))
		}
		r.Points = v
	}
	return r
}

// number parses a feedback file holding one number.
func number(b []byte) (float64, error) {
	s := strings.TrimSpace(string(b))
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("not a number: %q", s)
	}
	return v, nil
}
