package e2e_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"oj/core/clock"
	"oj/core/dispatch"
	"oj/core/job"
	"oj/core/judge"
	"oj/core/judge/cache"
	"oj/core/judge/objstore"
	"oj/core/judge/problem/problemtest"
	"oj/core/store"
	"oj/core/stream"
	"oj/core/testenv"
	"oj/core/worker"
	"oj/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.MaybeRunChild()
	os.Exit(m.Run())
}

// system is the whole judge core in this process.
type system struct {
	db      *pgxpool.Pool
	streams *stream.Streams
	store   objstore.Store
	judge   *judge.Judge
}

// newSystem starts the judge core with slots judging slots per lane; tweaks adjust the
// judge's configuration first.
func newSystem(tb testing.TB, slots int, tweaks ...func(*judge.Config)) *system {
	tb.Helper()
	return newSystemWith(tb, slots, nil, tweaks...)
}

// newSystemWith is newSystem with the dispatcher's config adjusted by dtweak (nil: none).
func newSystemWith(tb testing.TB, slots int, dtweak func(*dispatch.Config), tweaks ...func(*judge.Config)) *system {
	tb.Helper()
	if os.Geteuid() != 0 {
		tb.Skip("the sandbox needs root")
	}
	root := testenv.VarTmpDir(tb, "oj-e2e-")
	scfg := sandbox.DefaultConfig()
	scfg.PoolSize = 2 * slots
	scfg.CgroupParent = testenv.RandomName("oj-e2e-")
	pool, err := sandbox.NewPool(scfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { pool.Close() })
	objects, err := objstore.NewFS(filepath.Join(root, "objects"))
	if err != nil {
		tb.Fatal(err)
	}
	jcfg := judge.DefaultConfig()
	jcfg.WorkDir = filepath.Join(root, "work")
	jcfg.Cache = cache.Config{Dir: filepath.Join(root, "cache"), BudgetBytes: 1 << 30, FetchTimeout: time.Minute}
	for _, tweak := range tweaks {
		tweak(&jcfg)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("OJ_TEST_VERBOSE") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	j, err := judge.New(jcfg, judge.SandboxRunner{Pool: pool}, objects, log)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { j.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := j.WaitReady(ctx); err != nil {
		tb.Fatal(err)
	}

	db := testenv.DB(tb)
	streams := testenv.Streams(tb, testenv.RedisAddr(tb))
	dcfg := dispatch.DefaultConfig()
	dcfg.Webhooks.AllowPrivate = true // the tests' receivers listen on 127.0.0.1
	dcfg.Webhooks.CallbackSecret = callbackSecret
	if dtweak != nil {
		dtweak(&dcfg)
	}
	disp := dispatch.New(dcfg, db, streams, clock.Real{}, log, dispatch.NewMetrics(nil))
	wcfg := worker.DefaultConfig()
	wcfg.Name = "e2e"
	wcfg.Concurrency = map[string]int{"light": slots, "heavy": slots, "rejudge": slots, "run": slots}
	wcfg.ReadBlock = 100 * time.Millisecond
	w := worker.New(wcfg, db, streams, j, disp, clock.Real{}, log, worker.NewMetrics(nil))
	runCtx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); disp.Run(runCtx) }()
	go func() { defer wg.Done(); w.Run(runCtx) }()
	tb.Cleanup(func() { stop(); wg.Wait() })
	return &system{db: db, streams: streams, store: objects, judge: j}
}

func (s *system) problem(tb testing.TB, files map[string]string) string {
	tb.Helper()
	sha, err := objstore.PutProblem(context.Background(), s.store, problemtest.Zip(files))
	if err != nil {
		tb.Fatal(err)
	}
	return sha
}

func (s *system) submit(tb testing.TB, sha, language, source string) string {
	tb.Helper()
	l, ok := s.judge.Languages().Get(language)
	if !ok {
		tb.Fatalf("unknown language %s", language)
	}
	id, err := store.Submit(context.Background(), s.db, store.NewSubmission{ProblemID: "aplusb", ProblemVersion: 1,
		ProblemSHA256: sha, Language: language, Lane: l.Lane, Source: source, TraceID: testenv.RandomName("e2e-")})
	if err != nil {
		tb.Fatal(err)
	}
	return id
}

func (s *system) wait(tb testing.TB, id string) *store.Submission {
	tb.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		sub, err := store.GetSubmission(context.Background(), s.db, id)
		if err == nil && sub.State.Terminal() {
			return sub
		}
		time.Sleep(10 * time.Millisecond)
	}
	tb.Fatalf("submission %s not judged in 3 minutes", id)
	return nil
}

// waitAll waits until every submission of ids is terminal, with one count a poll: the
// benchmark's own reads of PostgreSQL stay small next to what it measures.
func (s *system) waitAll(tb testing.TB, ids []string) {
	tb.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		var n int
		err := s.db.QueryRow(context.Background(), `SELECT count(*) FROM submissions
			WHERE id = ANY($1) AND state IN ('finished', 'dead', 'canceled')`, ids).Scan(&n)
		if err == nil && n == len(ids) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	tb.Fatalf("%d submissions not all judged in 3 minutes", len(ids))
}

const aplusbYAML = "title: A+B\ntime_limit_ms: 1000\nmemory_limit_mb: 128\n"

// Submissions go through PostgreSQL, the outbox, Redis and a worker whose judge compiles
// and runs them in the sandbox; the verdicts come back through the fenced finalize.
func TestVerdictsEndToEnd(t *testing.T) {
	s := newSystem(t, 2)
	sha := s.problem(t, problemtest.APlusB(aplusbYAML))
	tests := []struct {
		name, language, source string
		want                   job.Verdict
	}{
		{"python accepted", "python3", "a, b = map(int, input().split())\nprint(a + b)\n", job.VerdictAC},
		{"c++ accepted", "cpp17", "#include <bits/stdc++.h>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<\"\\n\";}\n", job.VerdictAC},
		{"c off by one", "c11", "#include <stdio.h>\nint main(){long long a,b;scanf(\"%lld %lld\",&a,&b);printf(\"%lld\\n\",a+b+1);}\n", job.VerdictWA},
		{"c++ does not compile", "cpp17", "int main( {", job.VerdictCE},
		{"python loops forever", "python3", "while True:\n    pass\n", job.VerdictTLE},
		{"c crashes", "c11", "int main(){int *p=0; return *p;}\n", job.VerdictRE},
	}
	ids := make([]string, len(tests))
	for i, tc := range tests {
		ids[i] = s.submit(t, sha, tc.language, tc.source)
	}
	for i, tc := range tests {
		sub := s.wait(t, ids[i])
		if sub.State != job.StateFinished || sub.Verdict != tc.want || sub.Attempt != 1 {
			t.Errorf("%s: state %s verdict %s attempt %d (want %s); compile output %q", tc.name, sub.State, sub.Verdict,
				sub.Attempt, tc.want, sub.CompileOutput)
		}
		if tc.want == job.VerdictAC && (len(sub.Cases) != 3 || sub.Score != 100) {
			t.Errorf("%s: cases %+v score %v", tc.name, sub.Cases, sub.Score)
		}
		if tc.want == job.VerdictCE && sub.CompileOutput == "" {
			t.Errorf("%s: no compiler message", tc.name)
		}
	}
}

// BenchmarkPythonAPlusBEndToEnd: Python A+B with one case, submit → verdict through the
// whole core, on 2 slots (this machine's 2 cores).
func BenchmarkPythonAPlusBEndToEnd(b *testing.B) {
	s := newSystem(b, 2)
	sha := s.problem(b, problemtest.Cases(map[string]string{"problem.yaml": aplusbYAML}, [2]string{"1 2\n", "3\n"}))
	src := "a, b = map(int, input().split())\nprint(a + b)\n"
	s.wait(b, s.submit(b, sha, "python3", src)) // warm the package cache
	n := max(b.N, 200)
	b.ResetTimer()
	start := time.Now()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = s.submit(b, sha, "python3", src)
	}
	s.waitAll(b, ids)
	d := time.Since(start)
	b.StopTimer()
	for _, id := range ids {
		if sub := s.wait(b, id); sub.Verdict != job.VerdictAC {
			b.Fatalf("verdict %s", sub.Verdict)
		}
	}
	b.ReportMetric(float64(n)/d.Seconds(), "judged/s")
	fmt.Printf("\nPython A+B end to end (submit → verdict, 2 slots): %d submissions in %s = %.1f judged/s\n",
		n, d.Round(time.Millisecond), float64(n)/d.Seconds())
}
