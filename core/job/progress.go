package job

import "context"

// ProgressFunc receives each case's result as soon as the judge has it, before the whole
// verdict exists. Progress is advisory: the verdict written by the fenced finalize is the
// only result, and a progress report of a fenced-off attempt is simply superseded.
type ProgressFunc func(CaseResult)

type progressKey struct{}

// WithProgress returns a context whose judge reports cases to fn.
func WithProgress(ctx context.Context, fn ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ReportCase hands c to the context's ProgressFunc, if any. The score of a case is known
// only once every case of its subtask ran, so reports carry the verdict, time, memory and
// message, and a zero score.
func ReportCase(ctx context.Context, c CaseResult) {
	if fn, ok := ctx.Value(progressKey{}).(ProgressFunc); ok {
		fn(c)
	}
}
