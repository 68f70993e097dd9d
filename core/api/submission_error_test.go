package api_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/judge"
	"oj/core/wire"
)

// The error of a dead or SE submission reaches the API on every path that returns a
// submission (GET, submit with wait_ms, the terminal event); its owner sees its first
// line, admins all of it; a replay clears it, and other submissions have none.
func TestSubmissionErrorIsItsReason(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	ctx := context.Background()
	broken := judge.Permanent(&judge.ToolCompileError{Kind: "checker", Source: "checker.cpp",
		Output: "checker.cpp:1:10: fatal error: testlib.h: No such file or directory"})
	e.judge.Set(func(t job.Task, call int) (job.Outcome, error) {
		switch t.Source {
		case "dies":
			return job.Outcome{}, errors.New("sandbox: cgroup vanished\nat /sys/fs/cgroup/oj/slot3")
		case "broken":
			return job.Outcome{}, broken
		}
		return acceptAll(t, call)
	}, 0)
	dead := e.submit(e.alice, "dies")
	se := e.submit(e.alice, "broken")
	ok := e.submit(e.alice, "print(1)")

	if s := e.waitTerminal(dead, 20*time.Second); s.State != "dead" || s.Error != "sandbox: cgroup vanished\nat /sys/fs/cgroup/oj/slot3" {
		t.Fatalf("dead, as admin: state %s error %q", s.State, s.Error)
	}
	if s := e.waitTerminal(se, 20*time.Second); s.State != "finished" || *s.Verdict != "SE" ||
		!strings.HasPrefix(s.Error, "checker checker.cpp does not compile:\n") || !strings.Contains(s.Error, "testlib.h") || s.Attempt != 1 {
		t.Fatalf("SE, as admin: %+v", s)
	}
	if s := e.waitTerminal(ok, 20*time.Second); s.Error != "" {
		t.Fatalf("AC with error %q", s.Error)
	}
	for id, want := range map[string]string{dead: "sandbox: cgroup vanished", se: "checker checker.cpp does not compile:", ok: ""} {
		s, err := e.alice.Submission(ctx, id)
		if err != nil || s.Error != want {
			t.Errorf("owner's GET of %s: error %q (%v), want %q", id, s.Error, err, want)
		}
	}
	var last wire.StateEvent
	if err := e.alice.Events(ctx, se, func(ev wire.StateEvent) error { last = ev; return nil }); err != nil {
		t.Fatal(err)
	}
	if last.Submission == nil || last.Submission.Error != "checker checker.cpp does not compile:" {
		t.Fatalf("terminal event: %+v", last)
	}
	res, err := e.alice.Submit(ctx, wire.SubmitRequest{ProblemID: "aplusb", Language: "python3", Source: "broken",
		WaitMS: ptr(int64(10_000))}, "")
	if err != nil || res.Submission == nil || res.Submission.Error != "checker checker.cpp does not compile:" {
		t.Fatalf("submit with wait: %+v %v", res, err)
	}

	e.judge.Set(acceptAll, 0)
	if _, err := e.admin.ReplayDLQ(ctx, wire.ReplayRequest{IDs: []string{dead}}); err != nil {
		t.Fatal(err)
	}
	e.waitFor(20*time.Second, func() bool {
		s, err := e.admin.Submission(ctx, dead)
		return err == nil && s.State == "finished"
	})
	if s, _ := e.admin.Submission(ctx, dead); *s.Verdict != "AC" || s.Error != "" {
		t.Fatalf("after replay: verdict %s error %q", *s.Verdict, s.Error)
	}
}

func ptr[T any](v T) *T { return &v }
