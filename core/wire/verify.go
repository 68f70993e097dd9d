package wire

import (
	"fmt"
	"strconv"
	"time"
)

// VerifySummary is a version's latest verification in short, as GET of a problem
// shows it.
type VerifySummary struct {
	ID int64 `json:"id"`
	// State is running, passed or failed.
	State      string     `json:"state"`
	Summary    string     `json:"summary"`
	CreatedAt  time.Time  `json:"created_at"`
	FinishedAt *time.Time `json:"finished_at"`
}

// VerifyStarted is the answer of POST /admin/v1/problems/{id}/verify: the verification
// made (0 for a dry run), the submissions it queued (or would queue) and those it
// cannot run, and the time limit they run with.
type VerifyStarted struct {
	DryRun         bool   `json:"dry_run"`
	ProblemID      string `json:"problem_id"`
	Version        int    `json:"version"`
	VerificationID int64  `json:"verification_id"`
	Submissions    int    `json:"submissions"`
	NotRun         int    `json:"not_run"`
	RunLimitMS     int    `json:"run_limit_ms"`
}

// Verification is the answer of GET /admin/v1/problems/{id}/verify: a version's latest
// verification. While it runs, Rows lists the submissions with the verdicts they have so
// far (Status running); once every submission ended, the table against the limit.
type Verification struct {
	ID         int64      `json:"id"`
	ProblemID  string     `json:"problem_id"`
	Version    int        `json:"version"`
	State      string     `json:"state"`
	CreatedAt  time.Time  `json:"created_at"`
	FinishedAt *time.Time `json:"finished_at"`
	// LimitMS is the time limit the verdicts are held to (Derived: from the accepted
	// submissions); RunLimitMS the one the submissions ran with.
	LimitMS    int  `json:"limit_ms"`
	Derived    bool `json:"derived"`
	RunLimitMS int  `json:"run_limit_ms"`
	// SlowestACMS is the slowest case of the submissions labeled accepted (at language
	// factor 1), Margin the limit over it. SlowestACMeasuredMS is that case's time as
	// measured, SlowestACFactor the time factor of its language (SlowestACLanguage) that
	// divided it; 0 in a verification stored before they were kept.
	SlowestACMS         int         `json:"slowest_ac_ms"`
	SlowestACSource     string      `json:"slowest_ac_source"`
	SlowestACLanguage   string      `json:"slowest_ac_language"`
	SlowestACMeasuredMS int         `json:"slowest_ac_measured_ms"`
	SlowestACFactor     float64     `json:"slowest_ac_factor"`
	Margin              float64     `json:"margin"`
	Rows                []VerifyRow `json:"rows"`
	AsLabeled           int         `json:"as_labeled"`
	NotAsLabeled        int         `json:"not_as_labeled"`
	Ambiguous           int         `json:"ambiguous"`
	NotRun              int         `json:"not_run"`
	Summary             string      `json:"summary"`
	Problems            []string    `json:"problems"`
}

// VerifyRow is one labeled submission: what its label expects, what it got held to
// the limit (Got) and as run (Run), its slowest case against the limit for its
// language, and Status: as_labeled, not_as_labeled, ambiguous, not_run or running.
type VerifyRow struct {
	Source       string   `json:"source"`
	Language     string   `json:"language"`
	Label        string   `json:"label"`
	Expect       []string `json:"expect"`
	SubmissionID string   `json:"submission_id"`
	Got          string   `json:"got"`
	Run          string   `json:"run"`
	TimeMS       int      `json:"time_ms"`
	LimitMS      int      `json:"limit_ms"`
	// TimeFactor is the language's time factor that multiplied the limit into LimitMS (0:
	// not known, a row still running or stored before it was kept).
	TimeFactor float64 `json:"time_factor"`
	Score      float64 `json:"score"`
	Status     string  `json:"status"`
	Note       string  `json:"note"`
}

// SlowestACText says what the slowest accepted time is, in the verification's words:
// for a language with a time factor, the time as measured and the time after the
// division by the factor, which is the one held to the limit ("java: 1420 ms measured,
// 710 ms after the language's time factor 2"), so that nobody reads a derived limit as
// twice a measured time it is not.
func (v *Verification) SlowestACText() string {
	if v.SlowestACSource == "" {
		return "none"
	}
	if v.SlowestACFactor == 0 || v.SlowestACFactor == 1 {
		return fmt.Sprintf("%d ms (%s)", v.SlowestACMS, v.SlowestACSource)
	}
	return fmt.Sprintf("%s: %d ms measured, %d ms after the language's time factor %s (%s)", v.SlowestACLanguage,
		v.SlowestACMeasuredMS, v.SlowestACMS, strconv.FormatFloat(v.SlowestACFactor, 'g', -1, 64), v.SlowestACSource)
}
