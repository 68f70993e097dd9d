package judge

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/judge/lang"
)

// BenchmarkEveryLanguageAPlusB runs, for each language with a
// testdata/languages/<id>/ab program, that program compiled once (in the sandbox, as
// a submission is) on "1 2": through the judge's sandboxed run, and plainly on the host
// (the same argv, environment and directory, no sandbox), alternately. judged/plain is
// what the sandbox adds to one run of the language: the runtime's own start-up is in
// both.
func BenchmarkEveryLanguageAPlusB(b *testing.B) {
	needSandbox(b)
	dirs, err := os.ReadDir(filepath.Join("testdata", "languages"))
	if err != nil {
		b.Fatal(err)
	}
	for _, d := range dirs {
		id := d.Name()
		l, ok := testJudge.Languages().Get(id)
		if !ok || !testJudge.Supports(id) {
			continue
		}
		matches, _ := filepath.Glob(filepath.Join("testdata", "languages", id, "ab.*"))
		if len(matches) != 1 {
			continue
		}
		src, err := os.ReadFile(matches[0])
		if err != nil {
			b.Fatal(err)
		}
		b.Run(id, func(b *testing.B) { benchLanguage(b, l, string(src)) })
	}
}

func benchLanguage(b *testing.B, l *lang.Language, src string) {
	ctx := context.Background()
	dir, err := os.MkdirTemp(testJudge.tasksDir(), "bench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	tk := &task{j: testJudge, t: job.Task{Language: l.ID}, lang: l, dir: dir, box: filepath.Join(dir, "box"),
		cpu: 10 * time.Second, wall: 30 * time.Second, mem: 256 << 20, memMB: 256}
	if err := mkdirs(tk.box); err != nil {
		b.Fatal(err)
	}
	tk.src, tk.class = l.Entry(src)
	if err := os.WriteFile(filepath.Join(tk.box, tk.src), []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	if l.Compiled() {
		c, err := testJudge.compileWith(ctx, l, tk.box, compileOpts{lim: testJudge.cfg.Compile, src: tk.src})
		if err != nil || !c.ok {
			b.Fatalf("compile: %v %s", err, c.output)
		}
	}
	vars := lang.Vars{Src: tk.src, Class: tk.class, MemoryMB: tk.memMB, StackMB: tk.memMB, WorkDir: tk.box}
	plain := func() {
		cmd := exec.Command(lang.Expand(l.Run, vars)[0], lang.Expand(l.Run, vars)[1:]...)
		cmd.Dir, cmd.Env = tk.box, mergeEnv(baseEnv, lang.Expand(l.RunEnv, vars))
		cmd.Stdin = strings.NewReader("1 2\n")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil || strings.TrimSpace(out.String()) != "3" {
			b.Fatalf("plain run: %v %q", err, out.String())
		}
	}
	judged := func() {
		r, err := tk.runInput(ctx, 1, "1 2\n", 64)
		if err != nil || r.Status != job.RunOK || strings.TrimSpace(r.Stdout) != "3" {
			b.Fatalf("judged run: %v %+v", err, r)
		}
	}
	plain() // warm the page cache for both
	judged()
	var plainTime, judgedTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		plain()
		plainTime += time.Since(t0)
		t0 = time.Now()
		judged()
		judgedTime += time.Since(t0)
	}
	b.ReportMetric(float64(plainTime.Microseconds())/1000/float64(b.N), "plain-ms/op")
	b.ReportMetric(float64(judgedTime.Microseconds())/1000/float64(b.N), "judged-ms/op")
	b.ReportMetric(judgedTime.Seconds()/plainTime.Seconds(), "judged/plain")
}

// BenchmarkSelfCheckLanguages is the worker's start-up self-check of its languages:
// every configured language's version command in the sandbox, at once.
func BenchmarkSelfCheckLanguages(b *testing.B) {
	needSandbox(b)
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		if gone := testJudge.DetectVersions(ctx); len(gone) > 0 {
			b.Fatalf("languages lost: %v", gone)
		}
		cancel()
	}
	b.ReportMetric(float64(len(testJudge.Names())), "languages")
}
