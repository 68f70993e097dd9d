package judge

import (
	"archive/zip"
	"bytes"
	"context"
	"strings"
	"syscall"
	"testing"

	"oj/core/job"
)

// runC runs a C source as a run with spec's options (its limits filled in when zero).
func runC(t *testing.T, source string, spec job.RunSpec) job.Outcome {
	t.Helper()
	if spec.Stdins == nil {
		spec.Stdins = []string{""}
	}
	if spec.TimeMS == 0 {
		spec.TimeMS = 2000
	}
	if spec.MemoryMB == 0 {
		spec.MemoryMB = 256
	}
	if spec.OutputBytes == 0 {
		spec.OutputBytes = 4096
	}
	d, err := testJudge.Decide(context.Background(), job.Task{SubmissionID: "run-opts", Attempt: 1, Language: "c11",
		Source: source, Lane: job.LaneRun, Kind: job.KindRun, Run: &spec})
	if err != nil {
		t.Fatal(err)
	}
	return d.Outcome
}

func only(t *testing.T, o job.Outcome) job.RunResult {
	t.Helper()
	if o.Verdict != "" || len(o.Runs) != 1 {
		t.Fatalf("outcome %+v (compile output %q)", o, o.CompileOutput)
	}
	return o.Runs[0]
}

// Each option of a run reaches the real sandbox: arguments as argv entries (no shell),
// compiler arguments before the source, a file size bound that kills with SIGXFSZ (a
// runtime error, not the output limit), a stack bound, a process bound, stderr in
// stdout, files beside the source, repeated runs, and extra CPU time that delays the
// kill but not the verdict.
func TestRunOptionsOnTheRealSandbox(t *testing.T) {
	needSandbox(t)
	t.Parallel()
	t.Run("args", func(t *testing.T) {
		t.Parallel()
		r := only(t, runC(t, readSource(t, "runopts/args.c"), job.RunSpec{Args: []string{"a b", "$HOME", "'q'", ";ls"}}))
		if r.Status != job.RunOK || r.Stdout != "[a b]\n[$HOME]\n['q']\n[;ls]\n" {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("compiler args", func(t *testing.T) {
		t.Parallel()
		src := "#include <stdio.h>\nint main(void){ printf(\"%d\\n\", X); return 0; }\n"
		r := only(t, runC(t, src, job.RunSpec{CompilerArgs: []string{"-DX=41+1"}}))
		if r.Status != job.RunOK || r.Stdout != "42\n" {
			t.Fatalf("%+v", r)
		}
		if o := runC(t, src, job.RunSpec{}); o.Verdict != job.VerdictCE {
			t.Fatalf("without -DX: %+v", o)
		}
	})
	t.Run("max file", func(t *testing.T) {
		t.Parallel()
		r := only(t, runC(t, readSource(t, "runopts/bigfile.c"), job.RunSpec{MaxFileKB: 64}))
		if r.Status != job.RunRE || r.Signal != int(syscall.SIGXFSZ) || !strings.Contains(r.Message, "max_file_kb 64") {
			t.Fatalf("%+v", r)
		}
		// Without the bound the same program writes its 1 MiB file.
		if r := only(t, runC(t, readSource(t, "runopts/bigfile.c"), job.RunSpec{})); r.Status != job.RunOK {
			t.Fatalf("without max_file_kb: %+v", r)
		}
	})
	t.Run("stack", func(t *testing.T) {
		t.Parallel()
		src := readSource(t, "runopts/recurse.c")
		r := only(t, runC(t, src, job.RunSpec{StackKB: 1024, Stdins: []string{"100000"}}))
		if r.Status != job.RunRE || r.Signal != int(syscall.SIGSEGV) {
			t.Fatalf("1 MiB of stack: %+v", r)
		}
		if r := only(t, runC(t, src, job.RunSpec{StackKB: 64 << 10, Stdins: []string{"100000"}})); r.Status != job.RunOK {
			t.Fatalf("64 MiB of stack: %+v", r)
		}
	})
	t.Run("processes", func(t *testing.T) {
		t.Parallel()
		src := readSource(t, "runopts/fork.c")
		r := only(t, runC(t, src, job.RunSpec{Processes: 4, Stdins: []string{"8"}}))
		if r.Status != job.RunOK || !strings.HasPrefix(r.Stdout, "forked 3 of 8") {
			t.Fatalf("4 processes: %+v", r)
		}
		if r := only(t, runC(t, src, job.RunSpec{Processes: 16, Stdins: []string{"8"}})); r.Stdout != "forked 8 of 8\n" {
			t.Fatalf("16 processes: %+v", r)
		}
	})
	t.Run("stderr into stdout", func(t *testing.T) {
		t.Parallel()
		src := "#include <stdio.h>\nint main(void){ printf(\"1\"); fflush(stdout); fprintf(stderr, \"2\"); printf(\"3\\n\"); return 0; }\n"
		r := only(t, runC(t, src, job.RunSpec{RedirectStderr: true}))
		if r.Stdout != "123\n" || r.Stderr != "" {
			t.Fatalf("%+v", r)
		}
		if r := only(t, runC(t, src, job.RunSpec{})); r.Stdout != "13\n" || r.Stderr != "2" {
			t.Fatalf("apart: %+v", r)
		}
	})
	t.Run("files", func(t *testing.T) {
		t.Parallel()
		src := readSource(t, "runopts/readfile.c")
		files := zipFiles(t, map[string]string{"data/in.txt": "from the zip\n", "main.c": "not the source"})
		r := only(t, runC(t, src, job.RunSpec{Files: files}))
		if r.Status != job.RunOK || r.Stdout != "from the zip\n" {
			t.Fatalf("%+v", r)
		}
		bad := zipFiles(t, map[string]string{"../escape": "x"})
		if o := runC(t, src, job.RunSpec{Files: bad}); o.Verdict != job.VerdictCE || !strings.Contains(o.CompileOutput, "additional files") {
			t.Fatalf("a path outside: %+v", o)
		}
	})
	t.Run("runs averaged", func(t *testing.T) {
		t.Parallel()
		src := readSource(t, "runopts/count.c")
		r := only(t, runC(t, src, job.RunSpec{Runs: 3}))
		// Each run appends to a file in /w, and each run starts from the work dir as it
		// was: three runs, each seeing none of the others.
		if r.Status != job.RunOK || r.Stdout != "runs seen 1\n" || r.TimeMS < 0 {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("extra time", func(t *testing.T) {
		t.Parallel()
		src := readSource(t, "runopts/spin.c")
		// 300 ms of CPU: over a 200 ms limit; with 500 ms extra it is not killed before
		// it ends, prints, and is TLE all the same with its real time.
		r := only(t, runC(t, src, job.RunSpec{TimeMS: 200, ExtraTimeMS: 500, Stdins: []string{"300"}}))
		if r.Status != job.RunTLE || r.Stdout != "spun\n" || r.TimeMS < 250 {
			t.Fatalf("with extra time: %+v", r)
		}
		if r := only(t, runC(t, src, job.RunSpec{TimeMS: 200, Stdins: []string{"300"}})); r.Status != job.RunTLE || r.Stdout != "" {
			t.Fatalf("without: %+v", r)
		}
	})
	t.Run("exact bytes", func(t *testing.T) {
		t.Parallel()
		src := "#include <stdio.h>\nint main(void){ int c; while ((c = getchar()) != EOF) { putchar(c); fputc(c, stderr); } return 0; }\n"
		in := "\x00\xff\xfe\x80a"
		r := only(t, runC(t, src, job.RunSpec{Stdins: []string{in}}))
		if r.Stdout != in || r.Stderr != in {
			t.Fatalf("%q %q", r.Stdout, r.Stderr)
		}
	})
}

func zipFiles(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for name, body := range files {
		f, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
