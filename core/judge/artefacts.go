package judge

import (
	"context"
	"encoding/json"

	"oj/core/job"
	"oj/core/judge/objstore"
)

// storeArtefacts keeps the compile log and the cases' output excerpts in the object
// store (runs/<submission>/<attempt>/compile.log and cases.json), each bounded. They
// are diagnostics: failing to store them is logged and does not change the verdict.
func (j *Judge) storeArtefacts(ctx context.Context, t job.Task, arts artefacts) {
	if arts.CompileLog != "" {
		key := objstore.RunKey(t.SubmissionID, t.Attempt, objstore.CompileLogFile)
		if err := objstore.PutBounded(ctx, j.store, key, []byte(arts.CompileLog), j.cfg.CompileOutputBytes); err != nil {
			j.log.Warn("store compile log", "submission_id", t.SubmissionID, "attempt", t.Attempt, "trace_id", t.TraceID, "err", err)
		}
	}
	if len(arts.Cases) == 0 {
		return
	}
	b, err := json.Marshal(objstore.RunCases{Cases: arts.Cases})
	if err != nil {
		return
	}
	key := objstore.RunKey(t.SubmissionID, t.Attempt, objstore.CasesFile)
	// Each excerpt is already bounded; the cap only guards the sum.
	if err := objstore.PutBounded(ctx, j.store, key, b, (3*j.cfg.ExcerptBytes+1024)*len(arts.Cases)); err != nil {
		j.log.Warn("store case excerpts", "submission_id", t.SubmissionID, "attempt", t.Attempt, "trace_id", t.TraceID, "err", err)
	}
}
