package testenv

import (
	"context"
	"sync"
	"time"

	"oj/core/job"
)

// Judge is a scripted judge for pipeline tests: the test decides every answer (verdict,
// error, delay) and counts the calls per submission. It implements the worker's Judge.
type Judge struct {
	mu       sync.Mutex
	calls    map[string]int
	answered map[string]int
	decide   func(t job.Task, call int) (job.Outcome, error)
	delay    time.Duration
	progress bool
}

// Accept is the default answer: AC with one case; for a run, each input comes back as
// its stdout (the program is taken to be cat), status OK.
func Accept(t job.Task, _ int) (job.Outcome, error) {
	if t.Kind == job.KindRun && t.Run != nil {
		out := job.Outcome{Runs: make([]job.RunResult, len(t.Run.Stdins))}
		for i, in := range t.Run.Stdins {
			out.Runs[i] = job.RunResult{Index: i + 1, Status: job.RunOK, TimeMS: 1, WallMS: 1, MemoryKB: 1000, Stdout: in}
		}
		return out, nil
	}
	return job.Outcome{Verdict: job.VerdictAC, Score: 100, TimeMS: 1, MemoryKB: 1000,
		Cases: []job.CaseResult{{Index: 1, Subtask: 1, Verdict: job.VerdictAC, TimeMS: 1, MemoryKB: 1000, Score: 100}}}, nil
}

// NewJudge returns a judge answering with decide (nil: Accept).
func NewJudge(decide func(t job.Task, call int) (job.Outcome, error)) *Judge {
	j := &Judge{calls: map[string]int{}, answered: map[string]int{}}
	j.Set(decide, 0)
	return j
}

// Set changes the answer and the delay before it (nil decide: Accept).
func (j *Judge) Set(decide func(t job.Task, call int) (job.Outcome, error), delay time.Duration) {
	if decide == nil {
		decide = Accept
	}
	j.mu.Lock()
	j.decide, j.delay = decide, delay
	j.mu.Unlock()
}

// SetDelay changes only the delay. A delay ends early, with the context's cause as the
// error, when the context ends (a lost lease, a shutdown).
func (j *Judge) SetDelay(d time.Duration) {
	j.mu.Lock()
	j.delay = d
	j.mu.Unlock()
}

// SetProgress makes the judge report each case of its answer through the context before
// answering, as the real judge reports cases while it runs them.
func (j *Judge) SetProgress(on bool) {
	j.mu.Lock()
	j.progress = on
	j.mu.Unlock()
}

// Calls is how many times the submission was judged.
func (j *Judge) Calls(id string) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.calls[id]
}

// Answered is how many times the judge returned an answer (or error) for the
// submission: tests wait for it instead of sleeping through a delay.
func (j *Judge) Answered(id string) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.answered[id]
}

// Judge answers as scripted.
func (j *Judge) Judge(ctx context.Context, t job.Task) (job.Outcome, error) {
	defer func() {
		j.mu.Lock()
		j.answered[t.SubmissionID]++
		j.mu.Unlock()
	}()
	j.mu.Lock()
	j.calls[t.SubmissionID]++
	call := j.calls[t.SubmissionID]
	decide, delay, progress := j.decide, j.delay, j.progress
	j.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return job.Outcome{}, context.Cause(ctx)
		}
	}
	out, err := decide(t, call)
	if progress {
		for _, c := range out.Cases {
			job.ReportCase(ctx, c)
		}
	}
	return out, err
}
