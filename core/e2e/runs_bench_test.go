package e2e_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/judge/lang"
	"oj/core/store"
	"oj/core/testenv"
)

// runsBench is one language's workload: a program, its input and what it must print.
type runsBench struct {
	name, metric, language, source, stdin, want string
}

var runsBenches = []runsBench{
	{"C A+B", "c_aplusb_runs/s", "c11", "#include <stdio.h>\nint main(void) { long a, b; if (scanf(\"%ld %ld\", &a, &b) != 2) return 1; printf(\"%ld\\n\", a + b); return 0; }\n",
		"1 2\n", "3\n"},
	{"Python hello", "python_hello_runs/s", "python3", "print('hello')\n", "", "hello\n"},
}

// runsBenchRounds is how many rounds the whole-system and the plain runs alternate in.
const runsBenchRounds = 4

// BenchmarkRunsEndToEnd: runs/s through the whole core — a run stored with its outbox
// row, relayed to lane run, claimed, compiled and run in the sandbox, its results written
// back to PostgreSQL — on 2 run slots (this machine's 2 cores), against the plain loop
// doing the same work without isolation (compile, then run on the input and compare,
// 2 at a time), as ratios.
func BenchmarkRunsEndToEnd(b *testing.B) {
	s := newSystem(b, 2)
	n := max(b.N, 100) / runsBenchRounds * runsBenchRounds
	type row struct {
		name             string
		system, plain    float64
		sysDur, plainDur time.Duration
	}
	var rows []row
	b.ResetTimer()
	for _, w := range runsBenches {
		l, ok := s.judge.Languages().Get(w.language)
		if !ok || !s.judge.Supports(w.language) {
			b.Skipf("language %s unavailable here", w.language)
		}
		s.waitRuns(b, s.submitRuns(b, w, 2), w) // warm: the first compile of a worker is slow
		// The two alternate in rounds, so that a change of the machine's load (it is
		// shared) falls on both rather than on one of them.
		var sysDur, plainDur time.Duration
		for round := 0; round < runsBenchRounds; round++ {
			k := n / runsBenchRounds
			start := time.Now()
			s.waitRuns(b, s.submitRuns(b, w, k), w)
			sysDur += time.Since(start)
			start = time.Now()
			plainLoop(b, l, w, k, 2)
			plainDur += time.Since(start)
		}
		rows = append(rows, row{w.name, float64(n) / sysDur.Seconds(), float64(n) / plainDur.Seconds(), sysDur, plainDur})
		b.ReportMetric(float64(n)/sysDur.Seconds(), w.metric)
	}
	b.StopTimer()
	fmt.Printf("\nRuns end to end (store → outbox → lane run → sandbox → results in PostgreSQL, 2 slots) vs the plain loop (2 at a time), %d runs each\n", n)
	fmt.Printf("%-14s %14s %14s %8s\n", "", "oj runs/s", "plain runs/s", "ratio")
	for _, r := range rows {
		fmt.Printf("%-14s %14.1f %14.1f %8.2f\n", r.name, r.system, r.plain, r.system/r.plain)
	}
}

// submitRuns stores n runs of w, as POST /api/v1/runs does after its checks.
func (s *system) submitRuns(tb testing.TB, w runsBench, n int) []string {
	tb.Helper()
	ids := make([]string, n)
	spec := job.RunSpec{Stdins: []string{w.stdin}, TimeMS: 2000, MemoryMB: 256, OutputBytes: 64 << 10}
	for i := range ids {
		id, err := store.SubmitRun(context.Background(), s.db, store.NewRun{Language: w.language, Source: w.source,
			Spec: spec, TraceID: testenv.RandomName("bench-")})
		if err != nil {
			tb.Fatal(err)
		}
		ids[i] = id
	}
	return ids
}

// waitRuns waits for every run of ids to finish and checks each printed what w wants.
func (s *system) waitRuns(tb testing.TB, ids []string, w runsBench) {
	tb.Helper()
	s.waitAll(tb, ids)
	for _, id := range ids {
		r, err := store.GetRun(context.Background(), s.db, id)
		if err != nil {
			tb.Fatal(err)
		}
		if r.Verdict != "" || len(r.RunResults) != 1 || r.RunResults[0].Status != job.RunOK || r.RunResults[0].Stdout != w.want {
			tb.Fatalf("run %s of %s: verdict %q, results %+v, error %q", id, w.name, r.Verdict, r.RunResults, r.LastError)
		}
	}
}

// plainLoop does n runs' work without the sandbox or the core, par at a time: in a fresh
// directory, the language's compile command (if any), then its run command on the input,
// and the output compared.
func plainLoop(tb testing.TB, l *lang.Language, w runsBench, n, par int) {
	tb.Helper()
	root := tb.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, par)
	next := make(chan int)
	go func() {
		for i := 0; i < n; i++ {
			next <- i
		}
		close(next)
	}()
	for p := 0; p < par; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := plainRun(filepath.Join(root, fmt.Sprint(i)), l, w); err != nil {
					select {
					case errs <- err:
					default:
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		tb.Fatal(err)
	}
}

func plainRun(dir string, l *lang.Language, w runsBench) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, l.SourceFile), []byte(w.source), 0o644); err != nil {
		return err
	}
	vars := lang.Vars{Src: l.SourceFile, MemoryMB: 256, WorkDir: dir}
	if l.Compiled() {
		argv := lang.Expand(l.Compile, vars)
		c := exec.Command(argv[0], argv[1:]...)
		c.Dir = dir
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("plain compile: %v: %s", err, out)
		}
	}
	argv := lang.Expand(l.Run, vars)
	c := exec.Command(argv[0], argv[1:]...)
	c.Dir = dir
	c.Stdin = strings.NewReader(w.stdin)
	out, err := c.Output()
	if err != nil {
		return fmt.Errorf("plain run: %v", err)
	}
	if string(out) != w.want {
		return fmt.Errorf("plain run printed %q, want %q", out, w.want)
	}
	return nil
}
