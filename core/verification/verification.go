// Package verification decides what a problem version's verification found: each of
// the package's labeled submissions judged, its verdict held to the version's time
// limit, against what its label expects. It is pure: the API gathers the finished
// submissions and stores the result.
//
// The submissions run with the limit × time_limit_to_tle (or, for a version whose
// package gives no limit, with its provisional limit), so that how far past the limit a
// TLE-labeled one goes is seen. The limit is the version's, or derived from the
// accepted ones: the smallest multiple of the resolution at least the slowest accepted
// time × ac_to_time_limit. Each verdict is then held to that limit (times over it are
// TLE) and compared with the label:
//   - as labeled: the verdict is one the label expects;
//   - ambiguous: labeled TLE but within the limit on this machine, or TLE at the limit
//     but done within the limit × time_limit_to_tle — the times say how close;
//   - not as labeled: anything else;
//   - not run: oj has no language for it (or it did not end: dead, canceled).
package verification

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"oj/core/job"
	"oj/core/store"
)

// Timing is how the limit relates to the submissions' times (problem.Timing).
type Timing struct {
	Derive         bool
	ACToTimeLimit  float64
	TimeLimitToTLE float64
	ResolutionMS   int
}

// Input is a verification whose submissions have all ended.
type Input struct {
	// LimitMS is the version's time limit (ignored when Timing.Derive).
	LimitMS    int
	RunLimitMS int
	Timing     Timing
	// Scoring: verdicts come from scoring groups, not from the first failed case.
	Scoring bool
	// Interactive: a case the interactor rejected stays WA whatever time the solution
	// spent after (the rejection came first; at the limit it would have been killed
	// after it).
	Interactive bool
	Entries     []store.VerifyEntry
	// Runs are the entries' submissions by id.
	Runs map[string]*store.Submission
	// Factor is a language's time factor (1 when unknown).
	Factor func(language string) float64
}

// Row is one labeled submission's line of the table.
type Row struct {
	Source       string   `json:"source"`
	Language     string   `json:"language"`
	Label        string   `json:"label"`
	Expect       []string `json:"expect"`
	SubmissionID string   `json:"submission_id,omitempty"`
	// Got is the verdict held to the limit; Run the verdict it got as run.
	Got string `json:"got"`
	Run string `json:"run"`
	// TimeMS is its slowest case's CPU time; LimitMS the limit for its language (the
	// limit × the language's time factor, TimeFactor).
	TimeMS     int     `json:"time_ms"`
	LimitMS    int     `json:"limit_ms"`
	TimeFactor float64 `json:"time_factor,omitempty"`
	Score      float64 `json:"score"`
	Status     string  `json:"status"`
	Note       string  `json:"note,omitempty"`
}

// Row statuses.
const (
	AsLabeled    = "as_labeled"
	NotAsLabeled = "not_as_labeled"
	Ambiguous    = "ambiguous"
	NotRun       = "not_run"
)

// Result is the verification's table and what it concludes.
type Result struct {
	LimitMS int  `json:"limit_ms"`
	Derived bool `json:"derived"`
	// SlowestAC is the slowest accepted case among the submissions labeled accepted
	// (scaled to the limit's language factor 1), Margin the limit over it. Measured is
	// that case's time as run, before the division by its language's time factor
	// (SlowestACFactor): a reader told only the divided time takes it for a measurement.
	SlowestACMS         int     `json:"slowest_ac_ms"`
	SlowestACSource     string  `json:"slowest_ac_source,omitempty"`
	SlowestACLanguage   string  `json:"slowest_ac_language,omitempty"`
	SlowestACMeasuredMS int     `json:"slowest_ac_measured_ms,omitempty"`
	SlowestACFactor     float64 `json:"slowest_ac_factor,omitempty"`
	Margin              float64 `json:"margin"`
	RunLimitMS          int     `json:"run_limit_ms"`
	Rows                []Row   `json:"rows"`
	AsLabeled           int     `json:"as_labeled"`
	NotAsLabeled        int     `json:"not_as_labeled"`
	Ambiguous           int     `json:"ambiguous"`
	NotRun              int     `json:"not_run"`
	Summary             string  `json:"summary"`
	Passed              bool    `json:"passed"`
	// Problems are findings that fail the verification beyond its rows.
	Problems []string `json:"problems"`
}

func ended(s *store.Submission) bool { return s != nil && s.State == job.StateFinished }

func slowest(s *store.Submission) int {
	t := 0
	for _, c := range s.Cases {
		if c.Verdict != job.VerdictSK {
			t = max(t, c.TimeMS)
		}
	}
	return t
}

// Compute decides a verification.
func Compute(in Input) Result {
	factor := func(l string) float64 {
		if in.Factor == nil {
			return 1
		}
		if f := in.Factor(l); f > 0 {
			return f
		}
		return 1
	}
	r := Result{LimitMS: in.LimitMS, RunLimitMS: in.RunLimitMS, Problems: []string{}, Rows: []Row{}}
	// The accepted submissions bound the limit from below.
	for _, e := range in.Entries {
		s := in.Runs[e.SubmissionID]
		if !slices.Equal(e.Expect, []string{"AC"}) || !ended(s) || s.Verdict != job.VerdictAC {
			continue
		}
		f := factor(e.Language)
		t := int(math.Ceil(float64(slowest(s)) / f))
		if t >= r.SlowestACMS && e.TimeLimit {
			r.SlowestACMS, r.SlowestACSource = t, e.Source
			r.SlowestACLanguage, r.SlowestACMeasuredMS, r.SlowestACFactor = e.Language, slowest(s), f
		}
	}
	if in.Timing.Derive {
		if r.SlowestACSource == "" {
			r.Problems = append(r.Problems, "no submission labeled accepted was accepted: the time limit cannot be derived")
			r.LimitMS = in.RunLimitMS
		} else {
			res := max(in.Timing.ResolutionMS, 1)
			want := float64(max(r.SlowestACMS, 1)) * in.Timing.ACToTimeLimit
			r.LimitMS = int(math.Ceil(want/float64(res))) * res
			r.Derived = true
			if r.LimitMS > 60000 {
				r.Problems = append(r.Problems, fmt.Sprintf("the derived limit %d ms is over oj's 60000 ms", r.LimitMS))
				r.Derived = false
			}
		}
	}
	if r.SlowestACSource != "" {
		// Under a millisecond counts as one: the margin is then at least the limit in ms.
		r.Margin = math.Round(float64(r.LimitMS)/float64(max(r.SlowestACMS, 1))*100) / 100
	}
	for _, e := range in.Entries {
		row := Row{Source: e.Source, Language: e.Language, Label: e.Label, Expect: e.Expect, SubmissionID: e.SubmissionID, Note: e.Note}
		s := in.Runs[e.SubmissionID]
		switch {
		case e.SubmissionID == "":
			row.Status = NotRun
		case s == nil || !ended(s):
			row.Status = NotRun
			state := "missing"
			if s != nil {
				state = string(s.State)
				if s.LastError != "" {
					state += ": " + s.LastError
				}
			}
			row.Note = strings.TrimSpace(row.Note + " ended " + state)
		default:
			f := factor(e.Language)
			row.LimitMS, row.TimeFactor = int(float64(r.LimitMS)*f), f
			row.TimeMS, row.Run, row.Score = slowest(s), string(s.Verdict), s.Score
			row.Got = string(held(s, row.LimitMS, in.Scoring, in.Interactive))
			row.Status, row.Note = judge(row, e, in.Timing, r.LimitMS, f, in.RunLimitMS)
		}
		switch row.Status {
		case AsLabeled:
			r.AsLabeled++
		case NotAsLabeled:
			r.NotAsLabeled++
		case Ambiguous:
			r.Ambiguous++
		default:
			r.NotRun++
		}
		r.Rows = append(r.Rows, row)
	}
	r.Summary = fmt.Sprintf("%d as labeled, %d not", r.AsLabeled, r.NotAsLabeled)
	if r.Ambiguous > 0 {
		r.Summary += fmt.Sprintf(", %d ambiguous", r.Ambiguous)
	}
	if r.NotRun > 0 {
		r.Summary += fmt.Sprintf(", %d not run", r.NotRun)
	}
	r.Passed = r.NotAsLabeled == 0 && len(r.Problems) == 0
	return r
}

// held is the verdict a run gets when its cases are held to limitMS: without scoring,
// the first case (in order) that is not AC — a case over the limit is TLE, but for a
// rejection by an interactor, which came first; with scoring, an accepted run with a
// case over the limit is TLE.
func held(s *store.Submission, limitMS int, scoring, interactive bool) job.Verdict {
	switch s.Verdict {
	case job.VerdictCE, job.VerdictSE:
		return s.Verdict
	}
	if scoring {
		if (s.Verdict == job.VerdictAC || s.Verdict == job.VerdictPC) && slowest(s) > limitMS {
			return job.VerdictTLE
		}
		return s.Verdict
	}
	cases := slices.Clone(s.Cases)
	slices.SortFunc(cases, func(a, b job.CaseResult) int { return a.Index - b.Index })
	for _, c := range cases {
		v := c.Verdict
		if v == job.VerdictSK {
			continue
		}
		if c.TimeMS > limitMS && v != job.VerdictMLE && !(interactive && v == job.VerdictWA) {
			v = job.VerdictTLE
		}
		if v != job.VerdictAC {
			return v
		}
	}
	if len(cases) == 0 {
		return s.Verdict
	}
	return job.VerdictAC
}

// judge compares a row's verdict with its label.
func judge(row Row, e store.VerifyEntry, t Timing, limitMS int, factor float64, runLimitMS int) (string, string) {
	note := row.Note
	add := func(s string) string { return strings.TrimSpace(strings.TrimPrefix(note+"; "+s, "; ")) }
	expectTLE := slices.Contains(e.Expect, "TLE")
	switch {
	case slices.Contains(e.Expect, row.Got):
		// Past the limit but done within limit × time_limit_to_tle: too close to call. A
		// run that timed out at the run limit went past it (a wall-time TLE, a program
		// that waits, shows little CPU time).
		if row.Got == "TLE" && row.Run != "TLE" && t.TimeLimitToTLE > 1 {
			need := int(float64(limitMS) * t.TimeLimitToTLE * factor)
			if row.TimeMS < need && int(float64(runLimitMS)*factor) >= need {
				return Ambiguous, add(fmt.Sprintf("TLE at the limit (%d ms of %d ms) but done within limit × time_limit_to_tle (%d ms)", row.TimeMS, row.LimitMS, need))
			}
		}
		return AsLabeled, note
	case expectTLE && row.Got == "AC":
		return Ambiguous, add(fmt.Sprintf("labeled TLE but accepted within the limit on this machine (%d ms of %d ms)", row.TimeMS, row.LimitMS))
	}
	return NotAsLabeled, note
}
