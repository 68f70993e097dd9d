package judge

import (
	"context"
	"fmt"
	"testing"

	"oj/core/job"
	"oj/core/judge/objstore"
	"oj/core/judge/problem/problemtest"
)

// TestHostBusyIsMarked: a run the sandbox gave up because the host held it up past
// sandbox.max_stall ends the judging with an error the worker can tell from a failure
// of its own (IsHostBusy), so that it does not count towards the quarantine; any other
// sandbox failure does not carry the mark.
func TestHostBusyIsMarked(t *testing.T) {
	cases := []struct {
		name     string
		res      Result
		hostBusy bool
	}{
		{"stalled past max_stall", Result{Status: StatusSE, HostBusy: true,
			Error: "the host held the run up for 28s: the host is too busy to judge it"}, true},
		{"the sandbox failed", Result{Status: StatusSE, Error: "cgroup vanished"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files, script := scripted(t, oneSecond, job.VerdictAC, job.VerdictAC)
			script["2\n"] = fakeRun{res: c.res}
			j, store := fakeJudge(t, &fakeRunner{script: script})
			sha, err := objstore.PutProblem(context.Background(), store, problemtest.Zip(files))
			if err != nil {
				t.Fatal(err)
			}
			_, err = j.Judge(context.Background(), job.Task{SubmissionID: fmt.Sprintf("busy-%d", seq.Add(1)), Attempt: 1,
				ProblemSHA256: sha, Language: "fake", Source: "scripted"})
			if err == nil || IsHostBusy(err) != c.hostBusy || IsPermanent(err) {
				t.Fatalf("err %v, host busy %v; want an error to retry, host busy %v", err, IsHostBusy(err), c.hostBusy)
			}
		})
	}
}
