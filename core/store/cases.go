package store

import (
	"encoding/json"
	"fmt"

	"oj/core/job"
)

// caseJSON is one case as the jsonb column submissions.cases and an oj_progress
// notification hold it: the one place that JSON shape is spelled. job.CaseResult carries
// no JSON tags; the API reads both payloads with the same keys as wire.Case.
type caseJSON struct {
	Index          int         `json:"index"`
	Subtask        int         `json:"subtask"`
	Verdict        job.Verdict `json:"verdict"`
	TimeMS         int         `json:"time_ms"`
	MemoryKB       int         `json:"memory_kb"`
	Score          float64     `json:"score"`
	Message        string      `json:"message"`
	CheckerMessage string      `json:"checker_message,omitempty"`
}

func toCaseJSON(c job.CaseResult) caseJSON {
	return caseJSON{Index: c.Index, Subtask: c.Subtask, Verdict: c.Verdict, TimeMS: c.TimeMS, MemoryKB: c.MemoryKB,
		Score: c.Score, Message: c.Message, CheckerMessage: c.CheckerMessage}
}

// encodeCases is the value of the cases column: storable JSON (see jsonValue), "[]" for none.
func encodeCases(cs []job.CaseResult) ([]byte, error) {
	out := make([]caseJSON, len(cs))
	for i, c := range cs {
		out[i] = toCaseJSON(c)
	}
	return jsonValue(out)
}

// decodeCases reads the cases column.
func decodeCases(b []byte) ([]job.CaseResult, error) {
	var in []caseJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("decode cases: %w", err)
	}
	if in == nil {
		return nil, nil
	}
	out := make([]job.CaseResult, len(in))
	for i, c := range in {
		out[i] = job.CaseResult{Index: c.Index, Subtask: c.Subtask, Verdict: c.Verdict, TimeMS: c.TimeMS,
			MemoryKB: c.MemoryKB, Score: c.Score, Message: c.Message, CheckerMessage: c.CheckerMessage}
	}
	return out, nil
}

// DecodeCases reads a cases column as stored (a feed event carries it as it was).
func DecodeCases(b []byte) ([]job.CaseResult, error) { return decodeCases(b) }
