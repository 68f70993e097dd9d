package judge

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"oj/core/job"
	"oj/core/judge/cache"
	"oj/core/judge/problem/problemtest"
)

// slowReader is a Runner that stands between a program and the judge's stdout sink and
// reads nothing for delay once the program has started writing, as a worker starved of
// CPU on a busy host did: the program sits blocked on the full pipe meanwhile.
type slowReader struct {
	Runner
	delay time.Duration
}

func (s slowReader) Run(ctx context.Context, spec Spec) (Result, error) {
	if spec.KeepWrites || spec.Stdout == nil || !spec.StdoutDrained {
		return s.Runner.Run(ctx, spec) // compiles, and pipes to another program
	}
	r, w, err := os.Pipe()
	if err != nil {
		return Result{}, err
	}
	fd, err := unix.Dup(int(spec.Stdout.Fd())) // the judge closes its own copy at OnStart
	if err != nil {
		r.Close()
		w.Close()
		return Result{}, err
	}
	sink := os.NewFile(uintptr(fd), "sink")
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		defer r.Close() // past the judge's limit: the program's next write fails
		defer sink.Close()
		fds := []unix.PollFd{{Fd: int32(r.Fd()), Events: unix.POLLIN}}
		for {
			if n, err := unix.Poll(fds, -1); n > 0 || err != unix.EINTR {
				break
			}
		}
		time.Sleep(s.delay)
		if _, err := io.Copy(sink, r); err != nil && !errors.Is(err, syscall.EPIPE) {
			panic(err)
		}
	}()
	onStart := spec.OnStart
	spec.Stdout, spec.OnStart = w, func() {
		w.Close()
		if onStart != nil {
			onStart()
		}
	}
	res, err := s.Runner.Run(ctx, spec)
	w.Close()
	<-copied
	return res, err
}

// TestVerdictsHoldWhileTheJudgeReadsSlowly: a program whose output the judge takes
// late — its worker starved of CPU — waits on the judge, not by its own doing: an
// output flood is still OLE and a large right answer still AC, never TLE (under CPU
// hogs, every corpus OLE program was judged TLE this way).
func TestVerdictsHoldWhileTheJudgeReadsSlowly(t *testing.T) {
	needSandbox(t)
	// 200 ms of CPU: 1.6 s of wall time; the judge reads nothing for a quarter more than
	// that (a judge that counted the wait against the program would say TLE), which
	// leaves the rest of sandbox.max_stall (4 × 1.6 s) for copying the flood on a busy host.
	const yaml = "title: Slow reader\ntime_limit_ms: 200\nmemory_limit_mb: 64\n"
	wall := 3*200*time.Millisecond + time.Second
	cfg := DefaultConfig()
	cfg.WorkDir = filepath.Join(testRoot, "slow-reader", "work")
	cfg.Cache = cache.Config{Dir: filepath.Join(testRoot, "slow-reader", "cache"), BudgetBytes: 1 << 30, FetchTimeout: time.Minute}
	cfg.PrecompiledHeaders = false
	j, err := New(cfg, slowReader{SandboxRunner{Pool: testPool}, wall + wall/4}, testStore, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })

	big := strings.Repeat("1\n", 1<<20) // 2 MiB: twice the sink's pipe
	cases := []struct {
		name, src string
		files     map[string]string
		want      job.Verdict
	}{
		{"output flood is OLE", readSource(t, "corpus/c11/ole.c"),
			problemtest.Cases(map[string]string{"problem.yaml": yaml}, [2]string{"1 2\n", "3\n"}), job.VerdictOLE},
		{"2 MiB of right answer is AC", "#include <stdio.h>\nint main(void) { for (int i = 0; i < 1 << 20; i++) puts(\"1\"); return 0; }\n",
			problemtest.Cases(map[string]string{"problem.yaml": yaml}, [2]string{"x\n", big}), job.VerdictAC},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := judgeWith(t, j, putProblem(t, c.files), "c11", c.src)
			if out.Verdict != c.want {
				t.Fatalf("verdict %s, want %s; cases %+v", out.Verdict, c.want, out.Cases)
			}
		})
	}
}
