// Package job holds the judge core's vocabulary: submission states (and which of them are
// terminal or may be requeued), verdicts, lanes, the task a worker judges and the outcome
// it reports, case progress and retry backoff. The transitions themselves are SQL
// statements in core/store (claim, finalize, end of an attempt, requeue, cancel), each
// guarded by the states it may leave. It is pure: no I/O and no imports from the project,
// so every other package can share it.
package job

import (
	"fmt"
	"time"
)

// State is a submission's lifecycle state. PostgreSQL stores it in one column constrained
// to these values (see sql/migrations).
type State string

// The submission states of DESIGN.md.
const (
	StateQueued   State = "queued"
	StateRunning  State = "running"
	StateFinished State = "finished"
	StateDead     State = "dead"
	StateCanceled State = "canceled"
)

// Terminal reports whether no further transition can leave the state (short of an
// operator's replay or rejudge, which start a new attempt explicitly).
func (s State) Terminal() bool {
	return s == StateFinished || s == StateDead || s == StateCanceled
}

// Valid reports whether s is one of the known states.
func (s State) Valid() bool {
	switch s {
	case StateQueued, StateRunning, StateFinished, StateDead, StateCanceled:
		return true
	}
	return false
}

// Requeueable reports whether an operator may send a submission in state s back to the
// queue (replay of a dead letter, rejudge of a finished submission).
func Requeueable(s State) bool { return s.Terminal() }

// Verdict is a final or per-case verdict.
type Verdict string

// The verdicts of DESIGN.md.
const (
	VerdictAC  Verdict = "AC"
	VerdictWA  Verdict = "WA"
	VerdictPE  Verdict = "PE"
	VerdictPC  Verdict = "PC"
	VerdictTLE Verdict = "TLE"
	VerdictMLE Verdict = "MLE"
	VerdictOLE Verdict = "OLE"
	VerdictRE  Verdict = "RE"
	VerdictCE  Verdict = "CE"
	VerdictSE  Verdict = "SE"
	// VerdictSK is a case's verdict only, never a submission's: the case was not run
	// because an earlier one failed and the problem stops on the first failure.
	VerdictSK Verdict = "SK"
)

// Valid reports whether v is one of the known verdicts of a submission (SK, a case's
// only, is not one).
func (v Verdict) Valid() bool {
	switch v {
	case VerdictAC, VerdictWA, VerdictPE, VerdictPC, VerdictTLE, VerdictMLE, VerdictOLE, VerdictRE, VerdictCE, VerdictSE:
		return true
	}
	return false
}

// Lane is an execution lane: one Redis stream and one pool of worker slots.
type Lane string

// Lanes. Light is for interpreted languages (cheap to start), heavy for compiled ones,
// rejudge is the low-priority lane that operators' bulk rejudges go through so they do
// not delay live submissions, run carries runs (a program on the caller's own input, the
// Run button): its own slots, so a flood of runs never takes a judging slot.
const (
	LaneLight   Lane = "light"
	LaneHeavy   Lane = "heavy"
	LaneRejudge Lane = "rejudge"
	LaneRun     Lane = "run"
)

// Lanes lists every lane in priority order.
var Lanes = []Lane{LaneLight, LaneHeavy, LaneRejudge, LaneRun}

// ParseLane returns the lane named s.
func ParseLane(s string) (Lane, error) {
	for _, l := range Lanes {
		if string(l) == s {
			return l, nil
		}
	}
	return "", fmt.Errorf("unknown lane %q (want light, heavy, rejudge or run)", s)
}

// Backoff is the wait before retry n (1, 2, …): base·2^(n-1), capped at max.
func Backoff(base, max time.Duration, n int) time.Duration {
	d := base
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	return min(d, max)
}

// IsSubmissionID reports whether s is a submission id in its one canonical form: a
// UUID's 36 characters, lowercase hex and hyphens (what PostgreSQL returns and every
// notification carries). Other spellings of the same UUID (uppercase, braces,
// "urn:uuid:", no hyphens) are not ids here: refused as unknown, never looked up.
func IsSubmissionID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
	}
	return true
}
