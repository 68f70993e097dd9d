package job

// Task is what a worker hands the judge: one claimed attempt of one submission.
type Task struct {
	SubmissionID   string
	ProblemID      string
	ProblemVersion int
	ProblemSHA256  string
	Language       string
	Source         string
	Attempt        int
	Lane           Lane
	TraceID        string
	// TimeLimitMS is the CPU limit per case the task is judged with (before the
	// language's factor): its version's, which verify may have derived after the
	// package was stored, or the submission's own (a verification's). 0: the package's.
	TimeLimitMS int
}

// Outcome is the judge's answer for a task. A judge that could not decide (sandbox or
// storage failure) returns an error instead; the worker retries such attempts up to the
// bound and then dead-letters the submission.
type Outcome struct {
	Verdict       Verdict
	Score         float64
	TimeMS        int
	MemoryKB      int
	CompileOutput string
	Cases         []CaseResult
}

// CaseResult is one test case's result. Message is what the submission's owner sees and
// never holds the expected output or the test input; CheckerMessage is the checker's or
// interactor's whole message, for admins only (the API drops it for everyone else).
type CaseResult struct {
	Index          int
	Subtask        int
	Verdict        Verdict
	TimeMS         int
	MemoryKB       int
	Score          float64
	Message        string
	CheckerMessage string
}
