package render

import (
	"strings"

	"oj/core/job"
	"oj/core/store"
	"oj/core/wire"
)

// Submission is s as the API shows it to a viewer (an admin or not): no verdict fields
// before a verdict, an error's details only to admins, its cases as view lets the
// viewer see them, and its version's groups graded from its cases (no score at all on a
// pass/fail problem).
func Submission(s *store.Submission, admin bool, view View) wire.Submission {
	out := wire.Submission{ID: s.ID, ProblemID: s.ProblemID, ProblemVersion: s.ProblemVersion, Language: s.Language,
		State: string(s.State), Attempt: s.Attempt, CompileOutput: s.CompileOutput, CreatedAt: s.CreatedAt,
		FinishedAt: s.FinishedAt, Cases: make([]wire.Case, 0, len(s.Cases)), Metadata: s.Metadata,
		Purpose: Purpose(s.Purpose)}
	if out.Metadata == nil {
		out.Metadata = map[string]string{}
	}
	if s.Verdict != "" {
		v, score, t, m := string(s.Verdict), s.Score, s.TimeMS, s.MemoryKB
		out.Verdict, out.Score, out.TimeMS, out.MemoryKB = &v, &score, &t, &m
		if view.grading.PassFail {
			// The verdict is all: no score, rather than how many cases passed before the
			// first failure. Null as before a verdict, so clients that read the field
			// find what the contract always allowed.
			out.Score = nil
		}
	}
	out.Groups = groupResults(view.grading, judgedCases{verdict: s.Verdict, cases: s.Cases})
	out.Error = SubmissionError(s)
	if !admin {
		// The reason's first line says what failed; what follows (a compiler quoting a
		// checker's source, a storage error's details) is the problem setter's and the
		// operator's business, as a checker's own message is.
		out.Error, _, _ = strings.Cut(out.Error, "\n")
	}
	for _, c := range s.Cases {
		out.Cases = append(out.Cases, view.Case(Case(c)))
	}
	return out
}

// Purpose is a stored purpose as the API says it: a submission recorded before
// submissions had one is a user's.
func Purpose(p string) string {
	if p == "" {
		return store.PurposeUser
	}
	return p
}

// SubmissionError is the reason of a dead or SE submission (its last attempt's error),
// empty otherwise: a queued submission being retried keeps its last error in PostgreSQL,
// but it is not the submission's reason until the submission ends.
func SubmissionError(s *store.Submission) string {
	if s.State == job.StateDead || (s.State == job.StateFinished && s.Verdict == job.VerdictSE) {
		if s.LastError == "" {
			return "system error (no reason recorded)"
		}
		return s.LastError
	}
	return ""
}

// Case is a stored case result in the API's shape, before a View applies.
func Case(c job.CaseResult) wire.Case {
	return wire.Case{Index: c.Index, Subtask: c.Subtask, Verdict: string(c.Verdict), TimeMS: c.TimeMS,
		MemoryKB: c.MemoryKB, Score: c.Score, Message: c.Message, CheckerMessage: c.CheckerMessage}
}
