package judge

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/judge/problem/problemtest"
)

// BenchmarkCppAPlusB10Cases judges C++ A+B with 10 cases and, in the same run, times a
// plain 'g++ -std=c++17 -O2' of the same source (no sandbox, no precompiled header).
// It reports judge/g++ as the ratio the issue bounds (≤ 1.15).
func BenchmarkCppAPlusB10Cases(b *testing.B) {
	needSandbox(b)
	var pairs [][2]string
	for i := 1; i <= 10; i++ {
		pairs = append(pairs, [2]string{fmt.Sprintf("%d %d\n", i, i*7), fmt.Sprintf("%d\n", i*8)})
	}
	sha := putProblem(b, problemtest.Cases(map[string]string{"problem.yaml": "title: A+B\n"}, pairs...))
	src := readSource(b, "corpus/cpp17/ac.cpp")
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.cpp"), []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	judgeWith(b, testJudge, sha, "cpp17", src) // package into the cache
	var judgeTime, gccTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		cmd := exec.Command("g++", "-std=c++17", "-O2", "-pipe", "-o", filepath.Join(dir, "main"), filepath.Join(dir, "main.cpp"))
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("g++: %v %s", err, out)
		}
		gccTime += time.Since(t0)
		t0 = time.Now()
		if out := judgeWith(b, testJudge, sha, "cpp17", src); out.Verdict != job.VerdictAC {
			b.Fatalf("verdict %s", out.Verdict)
		}
		judgeTime += time.Since(t0)
	}
	b.ReportMetric(float64(judgeTime.Milliseconds())/float64(b.N), "judge-ms/op")
	b.ReportMetric(float64(gccTime.Milliseconds())/float64(b.N), "g++-ms/op")
	b.ReportMetric(judgeTime.Seconds()/gccTime.Seconds(), "judge/g++")
}

// BenchmarkPythonAPlusBConcurrent2 judges Python A+B (one case) with two judges'
// worth of concurrency and reports judged submissions per second (the judge alone:
// no PostgreSQL, Redis or HTTP).
func BenchmarkPythonAPlusBConcurrent2(b *testing.B) {
	needSandbox(b)
	sha := putProblem(b, problemtest.Cases(map[string]string{"problem.yaml": "title: A+B\n"}, [2]string{"1 2\n", "3\n"}))
	src := readSource(b, "corpus/python3/ac.py")
	judgeWith(b, testJudge, sha, "python3", src)
	b.ResetTimer()
	t0 := time.Now()
	var wg sync.WaitGroup
	next := make(chan struct{})
	go func() {
		for i := 0; i < b.N; i++ {
			next <- struct{}{}
		}
		close(next)
	}()
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				// A submission id of its own, as in production: its artefacts are new
				// files, not a rewrite of the last one's.
				out, err := testJudge.Judge(context.Background(), job.Task{SubmissionID: fmt.Sprintf("bench-%d", seq.Add(1)), Attempt: 1,
					ProblemSHA256: sha, Language: "python3", Source: src})
				if err != nil || out.Verdict != job.VerdictAC {
					b.Errorf("%v %v", out.Verdict, err)
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "submissions/s")
}
