package render

import (
	"strings"

	"oj/core/job"
	"oj/core/store"
	"oj/core/wire"
)

// Run is run s as oj's API shows it to its owner or, with admin, to an admin: like a
// submission's, an error's details past its first line are for admins only.
func Run(s *store.Submission, admin bool) wire.Run {
	out := wire.Run{ID: s.ID, Language: s.Language, State: string(s.State), Attempt: s.Attempt,
		CompileOutput: s.CompileOutput, Results: make([]wire.RunResult, 0, len(s.RunResults)),
		Metadata: s.Metadata, CreatedAt: s.CreatedAt, FinishedAt: s.FinishedAt, Clamped: []string{},
		Origin: s.Origin, PublicToken: s.PublicToken}
	if out.Metadata == nil {
		out.Metadata = map[string]string{}
	}
	if out.Origin == "" {
		out.Origin = store.OriginAPI // made before runs had an origin
	}
	if s.Run != nil {
		out.Limits, out.Inputs = RunLimits(*s.Run), len(s.Run.Stdins)
		if s.Run.Clamped != nil {
			out.Clamped = s.Run.Clamped
		}
	}
	if s.Verdict != "" {
		v := string(s.Verdict)
		out.Verdict = &v
	}
	out.Error = SubmissionError(s)
	if !admin {
		out.Error, _, _ = strings.Cut(out.Error, "\n")
	}
	for _, r := range s.RunResults {
		out.Results = append(out.Results, wire.RunResult{Index: r.Index, Status: string(r.Status), ExitCode: r.ExitCode,
			Signal: r.Signal, TimeMS: r.TimeMS, WallMS: r.WallMS, MemoryKB: r.MemoryKB, Stdout: r.Stdout, Stderr: r.Stderr,
			StdoutTruncated: r.StdoutTruncated, StderrTruncated: r.StderrTruncated, Message: r.Message})
	}
	return out
}

// RunLimits is the limits a run was given, as the API shows them.
func RunLimits(s job.RunSpec) wire.RunLimits {
	return wire.RunLimits{TimeMS: s.TimeMS, MemoryMB: s.MemoryMB, OutputBytes: s.OutputBytes}
}
