package wire

// Grading is how a problem version scores a submission (GET /api/v1/problems/{id}).
type Grading struct {
	// Mode is pass_fail (the verdict is all: a submission has no score, its score is
	// null), cases (every case weighs the same, out of 100), subtasks (oj's subtasks),
	// or groups (a Kattis or Polygon tree of scoring groups).
	Mode string `json:"mode"`
	// MaxScore is the most a submission can score; null for pass_fail.
	MaxScore *float64 `json:"max_score"`
	// Aggregate is how the top-level groups' scores make the submission's (sum, min,
	// max, avg); empty for pass_fail.
	Aggregate string `json:"aggregate"`
	// Groups are the top-level groups (subtasks: one each, named "subtask N"), each
	// with its own; empty for pass_fail and cases.
	Groups []ProblemGroup `json:"groups"`
}

// ProblemGroup is one group of a version's group tree.
type ProblemGroup struct {
	// Name is the group's own name; Path it prefixed by its ancestors' ("secret/group1"),
	// unique in the tree: a submission's group results carry the same paths.
	Name     string  `json:"name"`
	Path     string  `json:"path"`
	MaxScore float64 `json:"max_score"`
	// Aggregate is how its items' scores make its own: sum, min, max, avg, or pass_fail
	// (all accepted: its maximum, else nothing). A subtask is min (its score × the
	// smallest fraction of points among its cases).
	Aggregate string `json:"aggregate"`
	// Verdict is how its verdict is chosen from its items': worst_error, first_error,
	// always_accept; OnReject is break (its remaining cases are skipped at the first
	// rejection) or continue. Both empty for a subtask.
	Verdict  string `json:"verdict,omitempty"`
	OnReject string `json:"on_reject,omitempty"`
	// AcceptScore is what an accepted case scores without a score of its own (1 when
	// null); RejectScore what a rejected one scores.
	AcceptScore         *float64 `json:"accept_score,omitempty"`
	RejectScore         float64  `json:"reject_score"`
	AcceptIfAnyAccepted bool     `json:"accept_if_any_accepted,omitempty"`
	// Ignore: the group is judged but counts for nothing (samples).
	Ignore bool `json:"ignore,omitempty"`
	// Cases are the cases directly in the group; Groups its subgroups.
	Cases  []int          `json:"cases"`
	Groups []ProblemGroup `json:"groups"`
}

// GroupResult is one group of a submission's problem version, graded from the
// submission's case results ("group 1: 50/50").
type GroupResult struct {
	Name     string  `json:"name"`
	Path     string  `json:"path"`
	Score    float64 `json:"score"`
	MaxScore float64 `json:"max_score"`
	// Verdict is the group's: AC, PC when accepted short of its maximum, the failure
	// that decided it, or SK when none of its cases was judged.
	Verdict string `json:"verdict"`
	// FirstFailingCase is its first case (by index) judged and not accepted; null when
	// none was.
	FirstFailingCase *int          `json:"first_failing_case"`
	Groups           []GroupResult `json:"groups"`
}

// TimeLimitDerivation says how a version's time limit relates to its package's labeled
// submissions (Kattis's timing): the multipliers, and once a verify derived the limit,
// what it was derived from.
type TimeLimitDerivation struct {
	// State is provisional (the limit waits for a verify: the problem takes no user
	// submissions) or derived.
	State string `json:"state"`
	// LimitMS is the version's limit: the provisional one, or the derived one.
	LimitMS int `json:"limit_ms"`
	// The multipliers: limit ≥ slowest accepted × ACToTimeLimit, rounded up to a multiple
	// of ResolutionMS; a submission labeled TLE must take limit × TimeLimitToTLE. Null in
	// versions recorded before they were kept.
	ACToTimeLimit  *float64 `json:"ac_to_time_limit"`
	TimeLimitToTLE *float64 `json:"time_limit_to_tle"`
	ResolutionMS   *int     `json:"resolution_ms"`
	// VerificationID is the verification that derived the limit (0 while provisional).
	VerificationID int64 `json:"verification_id"`
	// SlowestACMS is the slowest accepted case it was derived from (at language factor
	// 1), SlowestACSource the labeled submission that took it.
	SlowestACMS     int    `json:"slowest_ac_ms"`
	SlowestACSource string `json:"slowest_ac_source"`
	// From are the accepted labeled submissions the limit was derived from (admins only;
	// absent for other tokens).
	From []DerivedFrom `json:"from,omitempty"`
}

// DerivedFrom is one accepted labeled submission a limit was derived from.
type DerivedFrom struct {
	Source       string `json:"source"`
	Language     string `json:"language"`
	SubmissionID string `json:"submission_id"`
	TimeMS       int    `json:"time_ms"`
}
