package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"oj/core/api/client"
	"oj/core/wire"
	"oj/tui/shared"
)

var _ shared.Source = (*client.Client)(nil)

// t0 is the fake clock's start: goldens must not depend on the real time.
var t0 = time.Date(2025, 3, 14, 12, 0, 0, 0, time.UTC)

// fake is a scripted server: what the dashboard's Source would get from the API.
type fake struct {
	mu       sync.Mutex
	down     error // every call fails with it
	empty    bool
	finished int64
	pending  int64
	now      func() time.Time
	calls    []string
	// redis70: the consumers' inactive_ms is null, as on a Redis before 7.2.
	redis70 bool
	// refuseCancel, when set, is the answer of a real (not dry) cancel.
	refuseCancel error
}

func (f *fake) fail(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, name)
	return f.down
}

func (f *fake) Overview(context.Context) (*wire.Overview, error) {
	if err := f.fail("overview"); err != nil {
		return nil, err
	}
	if f.empty {
		return &wire.Overview{At: f.now(), RedisVersion: "7.2.4", Lanes: []wire.LaneOverview{{Lane: "light", GroupExists: true}}}, nil
	}
	return &wire.Overview{
		Lanes: []wire.LaneOverview{
			{Lane: "light", Length: 100000, Pending: f.pending, OldestPendingIdle: 95_000, Lag: 12, Consumers: 2, GroupExists: true,
				Waiting: 1240, OldestWaitMS: 61_000},
			{Lane: "heavy", Length: 2048, Pending: 3, OldestPendingIdle: 1500, Lag: 0, Consumers: 2, GroupExists: true},
			{Lane: "rejudge", Length: 0, Pending: 0, Consumers: 1, GroupExists: true},
			{Lane: "run", Length: 6, Pending: 1, OldestPendingIdle: 300, Lag: 5, Consumers: 2, GroupExists: true, Waiting: 40, OldestWaitMS: 2_000},
		},
		Runs:         []wire.StateCount{{State: "queued", Count: 45}, {State: "running", Count: 1}, {State: "finished", Count: 310}, {State: "canceled", Count: 0}},
		Outbox:       wire.OutboxStats{Backlog: 4, OldestAgeMS: 3200},
		DeadLetters:  2,
		Submissions:  []wire.StateCount{{State: "queued", Count: 15}, {State: "running", Count: 4}, {State: "finished", Count: f.finished}, {State: "dead", Count: 2}},
		RedisVersion: "7.2.4",
		At:           f.now(),
		NoWorker: []wire.LanguageWaiting{{Lane: "heavy", Language: "java17", Waiting: 3, OldestWaitMS: 42_000,
			Reason: "queued: no live worker runs java17"}},
		Languages: []wire.LanguageWorkers{
			{Language: "cpp17", Live: 1, Quarantined: 1, Problem: "its only live worker, judge-2, is quarantined"},
			{Language: "java17", Problem: "no live worker runs java17"},
			{Language: "kotlin", Problem: "no live worker runs kotlin"},
			{Language: "python3", Live: 2, Active: 2},
		},
	}, nil
}

func (f *fake) PEL(context.Context, string, time.Duration, int) ([]wire.PendingEntry, error) {
	if err := f.fail("pel"); err != nil || f.empty {
		return nil, err
	}
	var out []wire.PendingEntry
	for i := range 30 {
		out = append(out, wire.PendingEntry{Lane: "light", StreamID: fmt.Sprintf("1741953600000-%d", i),
			SubmissionID: fmt.Sprintf("0195a1b2-0000-7000-8000-%012d", i), Consumer: fmt.Sprintf("worker-%d", i%2+1),
			IdleMS: int64(95_000 - i*3000), Deliveries: int64(i%3 + 1)})
	}
	return out, nil
}

func (f *fake) Reclaim(_ context.Context, r wire.ReclaimRequest) (*wire.ReclaimResult, error) {
	if err := f.fail("reclaim"); err != nil {
		return nil, err
	}
	if r.DryRun { // a dry run did nothing: the count is in would_reclaim
		return &wire.ReclaimResult{DryRun: true, Examined: 30, WouldReclaim: 7, StillLeased: 23}, nil
	}
	return &wire.ReclaimResult{Examined: 30, Reclaimed: 7, StillLeased: 23}, nil
}

func (f *fake) Outbox(context.Context, int) (*wire.Outbox, error) {
	if err := f.fail("outbox"); err != nil {
		return nil, err
	}
	if f.empty {
		return &wire.Outbox{}, nil
	}
	rows := []wire.OutboxRow{
		{ID: 901, Kind: "enqueue", Lane: "light", SubmissionID: "0195a1b2-0000-7000-8000-0000000000aa", CreatedAt: t0.Add(-3 * time.Second), NextTry: t0.Add(2 * time.Second), Attempts: 2, LastError: "redis: connection refused"},
		{ID: 902, Kind: "enqueue", Lane: "heavy", SubmissionID: "0195a1b2-0000-7000-8000-0000000000bb", CreatedAt: t0.Add(-time.Second), NextTry: t0},
	}
	return &wire.Outbox{Backlog: 4, OldestAgeMS: 3200, Rows: rows}, nil
}

func (f *fake) DLQ(context.Context, int, string) (*wire.DLQ, error) {
	if err := f.fail("dlq"); err != nil {
		return nil, err
	}
	if f.empty {
		return &wire.DLQ{}, nil
	}
	return &wire.DLQ{Total: 2, Items: []wire.DeadLetter{
		{SubmissionID: "0195a1b2-dead-7000-8000-000000000001", Lane: "light", Attempts: 3, LastError: "fetch problem package 3f9a…: object not found", DeadSince: t0.Add(-42 * time.Minute)},
		{SubmissionID: "0195a1b2-dead-7000-8000-000000000002", Lane: "heavy", Attempts: 3, LastError: "toolchain rustc missing on worker-2", DeadSince: t0.Add(-5 * time.Minute)},
	}}, nil
}

// Submissions are 40 recent submissions, newest first: queued, running, judged with every
// kind of verdict, the two dead letters and a canceled one.
func (f *fake) Submissions(context.Context, wire.ListSubmissionsQuery) (*wire.SubmissionList, error) {
	if err := f.fail("submissions"); err != nil {
		return nil, err
	}
	if f.empty {
		return &wire.SubmissionList{Items: []wire.SubmissionSummary{}}, nil
	}
	problems := []string{"aplusb", "graph-paths", "knapsack"}
	langs := []string{"cpp17", "python3", "go", "rust", "java17"}
	verdicts := []string{"AC", "AC", "WA", "TLE", "AC", "PC", "CE", "RE", "MLE"}
	var items []wire.SubmissionSummary
	for k := range 40 {
		s := wire.SubmissionSummary{ID: fmt.Sprintf("0195a1b3-0000-7000-8000-%012d", 40-k), ProblemID: problems[k%3],
			Language: langs[k%5], State: "finished", Attempt: 1, CreatedAt: t0.Add(-time.Duration(k*37) * time.Second)}
		done := s.CreatedAt.Add(2 * time.Second)
		judged := func(v string, score float64, ms, kb int) {
			s.Verdict, s.Score, s.TimeMS, s.MemoryKB, s.FinishedAt = &v, &score, &ms, &kb, &done
		}
		switch {
		case k < 3:
			s.State, s.Attempt = "queued", 0
		case k < 6:
			s.State = "running"
		case k == 11 || k == 25:
			s.ID = fmt.Sprintf("0195a1b2-dead-7000-8000-%012d", map[int]int{11: 2, 25: 1}[k])
			s.State, s.Attempt = "dead", 3
			judged("SE", 0, 0, 0)
		case k == 17:
			s.State, s.Attempt, s.FinishedAt = "canceled", 2, &done
		default:
			v := verdicts[k%len(verdicts)]
			score := map[string]float64{"AC": 100, "PC": 45}[v]
			ms := 3 + k*17%900
			if v == "CE" {
				ms = 0
			}
			judged(v, score, ms, 3400+k*211)
		}
		items = append(items, s)
	}
	return &wire.SubmissionList{Items: items, NextCursor: "MjAyNS0wMy0xNFQxMTozNTozOVosMDE5NWExYjMtMDAwMC03MDAwLTgwMDAtMDAwMDAwMDAwMDAx"}, nil
}

func (f *fake) ReplayDLQ(_ context.Context, r wire.ReplayRequest) (*wire.ReplayResult, error) {
	if err := f.fail("replay"); err != nil {
		return nil, err
	}
	n := len(r.IDs)
	if r.All {
		n = 2
	}
	if r.DryRun {
		return &wire.ReplayResult{DryRun: true, Requested: n, WouldReplay: n}, nil
	}
	return &wire.ReplayResult{Requested: n, Replayed: n}, nil
}

func (f *fake) Trim(_ context.Context, r wire.TrimRequest) (*wire.TrimResult, error) {
	if err := f.fail("trim"); err != nil {
		return nil, err
	}
	return &wire.TrimResult{DryRun: r.DryRun, Strategy: "safe", LengthBefore: 100000, LengthAfter: 10030}, nil
}

func (f *fake) RejudgeSubmission(_ context.Context, _ string, dry bool) (*wire.RejudgeResult, error) {
	if err := f.fail("rejudge"); err != nil {
		return nil, err
	}
	if dry {
		return &wire.RejudgeResult{DryRun: true, Requested: 1, WouldRejudge: 1}, nil
	}
	return &wire.RejudgeResult{Requested: 1, Rejudged: 1}, nil
}

func (f *fake) Cancel(_ context.Context, _ string, dry bool) (*wire.CancelResult, error) {
	if err := f.fail("cancel"); err != nil {
		return nil, err
	}
	if dry {
		return &wire.CancelResult{DryRun: true, WouldCancel: 1}, nil
	}
	if f.refuseCancel != nil {
		return nil, f.refuseCancel
	}
	return &wire.CancelResult{Canceled: 1}, nil
}

func (f *fake) Workers(context.Context) (*wire.Workers, error) {
	if err := f.fail("workers"); err != nil {
		return nil, err
	}
	if f.empty {
		return &wire.Workers{}, nil
	}
	inactive := func(ms int64) *int64 {
		if f.redis70 {
			return nil
		}
		return &ms
	}
	return &wire.Workers{
		Lanes: []wire.LaneConsumers{
			{Lane: "light", Consumers: []wire.Consumer{{Name: "worker-1", Pending: 15, IdleMS: 120, InactiveMS: inactive(120)}, {Name: "worker-2", Pending: 15, IdleMS: 800, InactiveMS: inactive(95_000)}}},
			{Lane: "heavy", Consumers: []wire.Consumer{{Name: "worker-1", Pending: 3, IdleMS: 1500, InactiveMS: inactive(1500)},
				{Name: "worker-3", IdleMS: 4_000, InactiveMS: inactive(-1)}}},
		},
		Leases: []wire.LeaseSummary{
			{Owner: "worker-1", Count: 16, OldestStarted: t0.Add(-12 * time.Second), NextExpiry: t0.Add(18 * time.Second)},
			{Owner: "worker-2", Count: 15, Expired: 15, OldestStarted: t0.Add(-95 * time.Second), NextExpiry: t0.Add(-65 * time.Second)},
		},
		Workers: []wire.WorkerInfo{
			{Name: "worker-1", State: "active", Lanes: map[string]int{"light": 16, "heavy": 4}, Languages: []string{"c11", "cpp17", "java17", "python3"},
				StartedAt: t0.Add(-2 * time.Hour), LastSeen: t0.Add(-3 * time.Second), Live: true, InFlight: 16, RecentErrors: []wire.WorkerError{}},
			{Name: "worker-2", State: "quarantined", Reason: "the last 5 attempts ended in system errors; the last: run: sandbox failure: cgroup vanished",
				StateBy: "worker-2", StateAt: ptr(t0.Add(-90 * time.Second)), Lanes: map[string]int{"light": 16},
				Languages: []string{"python3"}, StartedAt: t0.Add(-time.Hour), LastSeen: t0.Add(-95 * time.Second), InFlight: 15,
				RecentErrors: []wire.WorkerError{{At: t0.Add(-91 * time.Second), SubmissionID: "0195a1b2-0000-7000-8000-0000000000bb",
					Error: "run: sandbox failure: cgroup vanished"}}},
			{Name: "worker-3", State: "draining", Reason: "kernel update", StateBy: "admin", StateAt: ptr(t0.Add(-5 * time.Minute)),
				Lanes: map[string]int{"heavy": 2}, Languages: []string{"c11", "cpp17", "python3"}, StartedAt: t0.Add(-3 * time.Hour),
				LastSeen: t0.Add(-time.Second), Live: true, RecentErrors: []wire.WorkerError{}},
		},
	}, nil
}

func ptr[T any](v T) *T { return &v }

func (f *fake) SetWorkerState(_ context.Context, name, action, _ string, dry bool) (*wire.WorkerActionResult, error) {
	if err := f.fail("worker_state"); err != nil {
		return nil, err
	}
	to := map[string]string{"drain": "draining", "disable": "disabled", "enable": "active"}[action]
	if dry {
		return &wire.WorkerActionResult{DryRun: true, Name: name, From: "active", To: to, WouldChange: 1}, nil
	}
	return &wire.WorkerActionResult{Name: name, From: "active", To: to, Changed: 1}, nil
}

func (f *fake) Audit(context.Context, int) ([]wire.AuditEntry, error) {
	if err := f.fail("audit"); err != nil {
		return nil, err
	}
	if f.empty {
		return []wire.AuditEntry{}, nil
	}
	return []wire.AuditEntry{
		{ID: 12, At: t0.Add(-2 * time.Minute), Actor: "alice", Action: "dlq_replay", Params: map[string]any{"ids": []any{"0195a1b2-0000-7000-8000-0000000000cc"}, "all": false}, Counts: map[string]any{"requested": 1, "replayed": 1}},
		{ID: 11, At: t0.Add(-10 * time.Minute), Actor: "alice", Action: "trim", DryRun: true, Params: map[string]any{"lane": "light", "strategy": "safe"}, Counts: map[string]any{"length_before": 100000, "length_after": 10030, "removed": 0, "would_remove": 89970,
			"lanes": []any{map[string]any{"lane": "light", "length_before": 100000, "length_after": 10030, "min_id": "1741953000000-0"}}}},
	}, nil
}

// judgedID is the finished WA submission (row 21 of Submissions) whose trace has cases,
// and deadID a dead one whose error is long.
const (
	judgedID = "0195a1b3-0000-7000-8000-000000000020"
	deadID   = "0195a1b2-dead-7000-8000-000000000002"
)

// longError is a dead submission's reason, longer than a line at both sizes.
const longError = "attempt 3: fetch problem package 3f9a5c0e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8.zip" +
	" from the object store: object not found (storage.s3 bucket oj, endpoint minio:9000); the package was removed" +
	" after the submission pinned version 2: push the problem again, then ojctl dlq replay " + deadID

func (f *fake) Trace(_ context.Context, id string) (*wire.Trace, error) {
	if err := f.fail("trace"); err != nil {
		return nil, err
	}
	if id == "missing" {
		return nil, errors.New("404 not_found")
	}
	if id == judgedID {
		return judgedTrace(id), nil
	}
	claimed, ended := t0.Add(-43*time.Minute), t0.Add(-42*time.Minute)
	verdict := "AC"
	t := &wire.Trace{
		Submission: wire.TraceSubmission{Submission: wire.Submission{ID: id, ProblemID: "aplusb", ProblemVersion: 2, Language: "cpp17",
			State: "dead", Verdict: nil, Attempt: 3}, OwnerID: &aliceID, Owner: "alice", Lane: "light", Failures: 3, MaxAttempts: 3,
			LastError: "fetch problem package 3f9a…: object not found"},
		Attempts: []wire.TraceAttempt{
			{Attempt: 1, Worker: "worker-1", ClaimedAt: &claimed, EndedAt: &ended, Outcome: "retry", Error: "fetch problem package: object not found"},
			{Attempt: 2, Worker: "worker-2", ClaimedAt: &claimed, EndedAt: &ended, Outcome: "retry", Error: "fetch problem package: object not found"},
			{Attempt: 3, Worker: "worker-1", ClaimedAt: &claimed, EndedAt: &ended, Outcome: "dead", Verdict: map[bool]string{true: verdict}[false], Error: "fetch problem package: object not found"},
		},
		Events: []wire.TraceEvent{
			{At: t0.Add(-44 * time.Minute), Event: "submitted", Attempt: 0},
			{At: claimed, Event: "claimed", Attempt: 1, Worker: "worker-1"},
			{At: ended, Event: "dead_lettered", Attempt: 3, Detail: "3 failures"},
			{At: t0.Add(-time.Minute), Event: "replayed", Attempt: 4, Actor: "alice"},
		},
		DeadLetter: &wire.DeadLetter{SubmissionID: id, Lane: "light", Attempts: 3, LastError: "object not found", DeadSince: ended},
	}
	if id == deadID {
		verdict := "SE"
		t.Submission.Verdict, t.Submission.Error, t.Submission.LastError = &verdict, longError, longError
	}
	return t, nil
}

// aliceID is the token id of the fake's submissions' owner.
var aliceID int64 = 7

// judgedTrace is a finished WA submission: four cases, one message longer than a line.
func judgedTrace(id string) *wire.Trace {
	claimed, ended := t0.Add(-12*time.Minute), t0.Add(-12*time.Minute+2*time.Second)
	verdict, score := "WA", 50.0
	return &wire.Trace{
		Submission: wire.TraceSubmission{Submission: wire.Submission{ID: id, ProblemID: "graph-paths", ProblemVersion: 4,
			Language: "python3", State: "finished", Verdict: &verdict, Score: &score, Attempt: 1, Cases: []wire.Case{
				{Index: 1, Subtask: 1, Verdict: "AC", TimeMS: 31, MemoryKB: 9800, Score: 25},
				{Index: 2, Subtask: 1, Verdict: "AC", TimeMS: 45, MemoryKB: 10240, Score: 25},
				{Index: 3, Subtask: 2, Verdict: "WA", TimeMS: 388, MemoryKB: 48200, Message: "line 2: the path 1 → 4 → 7 is not the shortest one; its length is 12 and the checker knows a path of length 9"},
				{Index: 4, Subtask: 2, Verdict: "TLE", TimeMS: 2000, MemoryKB: 51000, Message: "CPU time limit of 2s exceeded"},
			}}, OwnerID: &aliceID, Owner: "alice", Lane: "light", Failures: 0, MaxAttempts: 3},
		Attempts: []wire.TraceAttempt{{Attempt: 1, Worker: "worker-1", ClaimedAt: &claimed, EndedAt: &ended, Outcome: "finished", Verdict: "WA"}},
		Events: []wire.TraceEvent{
			{At: claimed.Add(-time.Second), Event: "submitted"},
			{At: claimed, Event: "claimed", Attempt: 1, Worker: "worker-1"},
			{At: ended, Event: "finished", Attempt: 1, Worker: "worker-1", Detail: "WA"},
		},
	}
}

func (f *fake) Case(_ context.Context, id string, n int) (*wire.CaseDetail, error) {
	if err := f.fail("case"); err != nil {
		return nil, err
	}
	t := judgedTrace(judgedID)
	if id != judgedID || n < 1 || n > len(t.Submission.Cases) {
		return nil, fmt.Errorf("GET /api/v1/submissions/%s/cases/%d: 404 not_found", id, n)
	}
	var out strings.Builder
	for i := range 5 {
		fmt.Fprintf(&out, "%d %d\n", i+1, (i*7)%13)
	}
	return &wire.CaseDetail{SubmissionID: id, Attempt: 1, Case: t.Submission.Cases[n-1], Stdout: out.String() + "\x1b[2Jsent a clear-screen too",
		Stderr: "Traceback (most recent call last):\n  File \"sol.py\", line 14, in <module>\n    dist = dijkstra(graph, 1)\n" +
			"warning: a very long line of debugging output that the solution wrote to stderr, longer than the pane is wide at either size, so it wraps\n"}, nil
}

// Webhooks are three endpoints: a healthy one that recovered from a timeout two hours
// ago, one failing for 40 minutes with a backlog, and one the dispatcher disabled after
// a 410.
func (f *fake) Webhooks(context.Context) (*wire.WebhookList, error) {
	if err := f.fail("webhooks"); err != nil {
		return nil, err
	}
	if f.empty {
		return &wire.WebhookList{Items: []wire.Webhook{}}, nil
	}
	failing, oldest, last := t0.Add(-40*time.Minute), t0.Add(-38*time.Minute), t0.Add(-90*time.Second)
	gone, timedOut := t0.Add(-3*time.Hour), t0.Add(-2*time.Hour)
	return &wire.WebhookList{Items: []wire.Webhook{
		{ID: "0195a1c0-0000-7000-8000-000000000001", URL: "https://contest.example.com/oj-hook", Events: []string{},
			Metadata: map[string]string{}, Enabled: true, CreatedAt: t0.Add(-48 * time.Hour),
			LastError: "timeout: no answer within 10s", LastErrorAt: &timedOut,
			Stats: wire.WebhookStats{Pending: 2, Delivered: 1834, LastDelivered: &last, OldestPending: &last}},
		{ID: "0195a1c0-0000-7000-8000-000000000002", URL: "https://lms.example.edu/hooks/oj", Events: []string{"submission.finished"},
			Metadata: map[string]string{"course": "cs101"}, Enabled: true, FailingSince: &failing,
			LastError: "HTTP 502: Bad Gateway", LastErrorAt: &last, CreatedAt: t0.Add(-72 * time.Hour),
			Stats: wire.WebhookStats{Pending: 212, Retrying: 212, Delivered: 96, Failed: 0, OldestPending: &oldest}},
		{ID: "0195a1c0-0000-7000-8000-000000000003", URL: "https://old.example.org/callback", Events: []string{},
			Metadata: map[string]string{}, Enabled: false, DisabledReason: "answered 410 Gone", DisabledAt: &gone,
			LastError: "HTTP 410", LastErrorAt: &gone, CreatedAt: t0.Add(-30 * 24 * time.Hour),
			Stats: wire.WebhookStats{Failed: 1}},
	}}, nil
}

func (f *fake) Problems(context.Context, string) (*wire.ProblemList, error) {
	if err := f.fail("problems"); err != nil {
		return nil, err
	}
	if f.empty {
		return &wire.ProblemList{Items: []wire.ProblemSummary{}}, nil
	}
	archived := t0.Add(-24 * time.Hour)
	return &wire.ProblemList{Items: []wire.ProblemSummary{
		{ID: "abs-problem-bfs", Title: "Absolute Value", Version: 1, CaseCount: 63, Submissions: 0, Format: "polygon",
			TimeLimitMS: 1000, MemoryLimitMB: 256, Verify: &wire.ProblemVerifyState{State: "passed", Summary: "4 as labeled, 0 not"},
			CreatedAt: t0.Add(-time.Hour), UpdatedAt: t0.Add(-time.Hour)},
		{ID: "aplusb", Title: "A+B", Version: 2, CaseCount: 3, Submissions: 1200, Format: "oj", TimeLimitMS: 1000,
			MemoryLimitMB: 256, CreatedAt: t0.Add(-48 * time.Hour), UpdatedAt: t0.Add(-2 * time.Hour)},
		{ID: "different", Title: "A Different Problem", Version: 3, CaseCount: 2, Submissions: 5, Format: "kattis",
			TimeLimitMS: 2000, MemoryLimitMB: 1024, Verify: &wire.ProblemVerifyState{State: "failed", Summary: "17 as labeled, 1 not"},
			CreatedAt: t0.Add(-3 * time.Hour), UpdatedAt: t0.Add(-time.Hour)},
		{ID: "guess", Title: "Guess the Number", Version: 1, CaseCount: 4, Format: "kattis", TimeLimitMS: 10000,
			MemoryLimitMB: 1024, TimeLimitProvisional: true, Verify: &wire.ProblemVerifyState{State: "running"},
			CreatedAt: t0.Add(-time.Minute), UpdatedAt: t0.Add(-time.Minute)},
		{ID: "old", Title: "Old", Version: 1, CaseCount: 1, Submissions: 3, Format: "oj", TimeLimitMS: 1000, MemoryLimitMB: 64,
			Archived: true, ArchivedAt: &archived, CreatedAt: t0.Add(-72 * time.Hour), UpdatedAt: t0.Add(-72 * time.Hour)},
	}}, nil
}

func (f *fake) VerifyProblem(_ context.Context, id string, dry bool) (*wire.VerifyStarted, error) {
	if err := f.fail("verify"); err != nil {
		return nil, err
	}
	return &wire.VerifyStarted{DryRun: dry, ProblemID: id, Version: 1, VerificationID: 7, Submissions: 4, RunLimitMS: 1500}, nil
}

func (f *fake) Verification(_ context.Context, id string) (*wire.Verification, error) {
	if err := f.fail("verification"); err != nil {
		return nil, err
	}
	if id != "abs-problem-bfs" {
		return nil, fmt.Errorf("GET /admin/v1/problems/%s/verify: 404 not_found: problem %q v1 has not been verified", id, id)
	}
	done := t0.Add(-50 * time.Minute)
	return &wire.Verification{ID: 7, ProblemID: id, Version: 1, State: "passed", CreatedAt: t0.Add(-time.Hour), FinishedAt: &done,
		RunLimitMS: 1500, LimitMS: 1000, SlowestACMS: 62, SlowestACSource: "solutions/abs-problem-bfs.cpp", Margin: 16.13,
		AsLabeled: 4, Summary: "4 as labeled, 0 not", Problems: []string{},
		Rows: []wire.VerifyRow{
			{Source: "solutions/abs-problem-bfs.cpp", Language: "cpp17", Label: "main", Expect: []string{"AC"}, Got: "finished", Run: "AC", TimeMS: 62, LimitMS: 1500, Status: "as_labeled"},
			{Source: "solutions/abs-problem-bfs_ok.py", Language: "python3", Label: "accepted", Expect: []string{"AC"}, Got: "finished", Run: "AC", TimeMS: 48, LimitMS: 1500, Status: "as_labeled"},
			{Source: "solutions/abs-problem-bfs_wa.cpp", Language: "cpp17", Label: "wrong-answer", Expect: []string{"WA"}, Got: "finished", Run: "WA", TimeMS: 3, LimitMS: 1500, Status: "as_labeled"},
			{Source: "solutions/abs-problem-bfs_tl.cpp", Language: "cpp17", Label: "time-limit-exceeded", Expect: []string{"TLE"}, Got: "finished", Run: "TLE", TimeMS: 1500, LimitMS: 1500, Status: "as_labeled"},
		}}, nil
}

func (f *fake) RemoveProblem(_ context.Context, id string, dry bool) (*wire.ProblemRemoved, error) {
	if err := f.fail("remove"); err != nil {
		return nil, err
	}
	if id == "aplusb" {
		return &wire.ProblemRemoved{DryRun: dry, ID: id, Action: "archived", Submissions: 1200}, nil
	}
	return &wire.ProblemRemoved{DryRun: dry, ID: id, Action: "deleted"}, nil
}
